import { SvcConfigurationError } from "./errors.js"
import type { SvcConfigOptions } from "./options.js"

/**
 * Type-checks a config file's options and returns them unchanged. It loads no environment
 * variables and runs no migrations; `observability` and `sessions` belong to the instance only.
 *
 * @example
 * ```ts
 * // svc.config.ts: `svc serve`, `svc migrate` and `svc purge` read its default export.
 * import { defineConfig } from "@svc/backend"
 *
 * export default defineConfig({
 *   database: { dialect: "postgres", url: process.env.DATABASE_URL!, schema: "consent" },
 *   trustedOrigins: ["www.example.com", "*.example.com"],
 *   apiKeys: [process.env.SVC_API_KEY!],
 *   manifest: {
 *     policyRules: [
 *       { id: "eu", match: { countries: ["DE", "FR", "IT"] }, model: "opt-in",
 *         categories: ["measurement", "marketing"] },
 *       { id: "everyone-else", match: { default: true }, model: "none", categories: [] }
 *     ]
 *   }
 * })
 * ```
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
