export { findConfigFile, loadConfig, withDatabaseUrl } from "./config-file.js"
export { demoOptions } from "./demo.js"
export { type RunningServer, type StartOptions, startServer } from "./start.js"
