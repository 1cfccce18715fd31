import { defineProject } from "vitest/config"
import { sourceResolution } from "../../vitest.shared.js"

export default defineProject({
  ...sourceResolution,
  test: {
    name: "client",
    // examples/*.test.ts: the README mock example runs as the test it shows.
    include: ["test/**/*.test.ts", "examples/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000
  }
})
