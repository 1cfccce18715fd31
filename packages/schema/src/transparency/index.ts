export * from "./checkpoint.js"
export * from "./merkle.js"
export * from "./note.js"
