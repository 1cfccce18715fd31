import { SvcConfigurationError } from "./errors.js"
import type { SvcConfigOptions } from "./options.js"

/**
 * Type-checks a config file's options and returns them unchanged. It loads no environment
 * variables and runs no migrations; `observability` and `sessions` belong to the instance only.
 */
export const defineConfig = <const T extends SvcConfigOptions>(
  options: T & { readonly observability?: never; readonly sessions?: never }
): T => {
  const problems: Array<string> = []
  if ("observability" in options) problems.push("observability: pass it to svcInstance(), not defineConfig()")
  if ("sessions" in options) problems.push("sessions: pass it to svcInstance(), not defineConfig()")
  if (problems.length > 0) throw new SvcConfigurationError(problems)
  return options
}
