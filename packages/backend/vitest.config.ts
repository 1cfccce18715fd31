import { defineProject } from "vitest/config"
import { sourceResolution } from "../../vitest.shared.js"

export default defineProject({
  ...sourceResolution,
  test: {
    name: "backend",
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/support/announce-servers.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000
  }
})
