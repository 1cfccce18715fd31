/**
 * Thrown by `defineConfig` and `svcInstance`: every problem found, not just the first. `issues`
 * holds one line per problem, each naming the option's path and never quoting a secret.
 *
 * @example
 * ```ts
 * import { svcInstance, SvcConfigurationError } from "@svc/backend"
 *
 * try {
 *   svcInstance({ database: { dialect: "postgres", url: process.env.DATABASE_URL! }, apiKeys: ["changeme"] })
 * } catch (error) {
 *   if (!(error instanceof SvcConfigurationError)) throw error
 *   // e.g. "apiKeys[0]: must be at least 32 bytes; generate one with `svc keys api`"
 *   for (const issue of error.issues) console.error(`svc config: ${issue}`)
 *   process.exit(1)
 * }
 * ```
 */
export class SvcConfigurationError extends Error {
  override readonly name = "SvcConfigurationError"
  constructor(readonly issues: ReadonlyArray<string>) {
    super(
      `Invalid svc configuration (${issues.length} problem${issues.length === 1 ? "" : "s"}):\n${
        issues.map((issue) => `  - ${issue}`).join("\n")
      }`
    )
  }
}
