import { expect } from "vitest"
import { createSvcClient, SvcConfigurationError } from "../../src/index.js"

/** The `SvcConfigurationError` that `createSvcClient(options)` throws; fails the test if it does not. */
export const configError = (options: unknown): SvcConfigurationError => {
  try {
    createSvcClient(options as never)
  } catch (error) {
    expect(error).toBeInstanceOf(SvcConfigurationError)
    return error as SvcConfigurationError
  }
  throw new Error("expected SvcConfigurationError")
}
