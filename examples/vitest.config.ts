import { defineProject } from "vitest/config"
import { sourceResolution } from "../vitest.shared.js"

export default defineProject({
  ...sourceResolution,
  test: {
    name: "examples",
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000
  }
})
