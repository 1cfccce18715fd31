/** Thrown by `defineConfig` and `svcInstance`: every problem found, not just the first. */
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
