import { SvcConfigurationError, svcInstance, type SvcOptions } from "@svc/backend"
import { expect } from "vitest"

/** The problems `svcInstance` reports for these options; fails the test if it accepts them. */
export const problemsOf = (options: unknown): ReadonlyArray<string> => {
  try {
    // Deliberately unchecked: the tests hand it invalid shapes.
    svcInstance(options as SvcOptions)
  } catch (error) {
    expect(error).toBeInstanceOf(SvcConfigurationError)
    return (error as SvcConfigurationError).issues
  }
  throw new Error("svcInstance accepted invalid options")
}
