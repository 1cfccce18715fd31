import { defineProject } from "vitest/config"
import { sourceResolution } from "../../vitest.shared.js"

export default defineProject({
  ...sourceResolution,
  test: {
    name: "browser",
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000
  }
})
