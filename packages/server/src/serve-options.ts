import { LOG_FORMATS, REQUEST_LOG_LEVELS, type SvcOptions } from "@svc/backend"
import { UsageError } from "./usage-error.js"

type Values = Readonly<Record<string, string | boolean | undefined>>
type Env = Readonly<Record<string, string | undefined>>

/** A flag's value, else the variable's, checked against `allowed`; a bad one is named by its source. */
const choice = <A extends string>(
  allowed: ReadonlyArray<A>,
  flag: readonly [string, string | boolean | undefined],
  variable: readonly [string, string | undefined]
): A | undefined => {
  const [source, value] = typeof flag[1] === "string"
    ? [`${flag[0]} ${flag[1]}`, flag[1]]
    : variable[1] !== undefined && variable[1] !== ""
    ? [`${variable[0]}=${variable[1]}`, variable[1]]
    : [undefined, undefined]
  if (source === undefined) return undefined
  const chosen = allowed.find((candidate) => candidate === value)
  if (chosen === undefined) throw new UsageError(`${source}: one of ${allowed.join(", ")}`)
  return chosen
}

/**
 * `svc serve` is the instance constructor the spec lets set `observability`: `--log-format`
 * (else `SVC_LOG_FORMAT`) and `--log-requests` (else `SVC_LOG_REQUESTS`) replace what the options
 * hold; neither given, the options are returned as they are.
 */
export const withLogFlags = (options: SvcOptions, values: Values, env: Env): SvcOptions => {
  const format = choice(LOG_FORMATS, ["--log-format", values["log-format"]], ["SVC_LOG_FORMAT", env.SVC_LOG_FORMAT])
  const requests = choice(REQUEST_LOG_LEVELS, ["--log-requests", values["log-requests"]], [
    "SVC_LOG_REQUESTS",
    env.SVC_LOG_REQUESTS
  ])
  if (format === undefined && requests === undefined) return options
  return {
    ...options,
    observability: {
      ...options.observability,
      ...(format === undefined ? {} : { format }),
      ...(requests === undefined ? {} : { requests })
    }
  }
}

/**
 * Whether `svc serve` serves `/demo`, and where it listens: the demo page only with the demo
 * configuration (no config file) or `--demo`; the demo configuration on the loopback interface
 * unless `--host` says otherwise, a real configuration on every interface.
 */
export const servePlan = (isDemoConfig: boolean, values: Values) => ({
  demoPage: isDemoConfig || values.demo === true,
  host: typeof values.host === "string" ? values.host : isDemoConfig ? "127.0.0.1" : "0.0.0.0"
})
