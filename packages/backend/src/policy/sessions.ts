import type { SessionReport, SessionReportInput } from "@svc/schema"
import { Effect, Runtime } from "effect"
import { SvcConfig } from "../config/resolved.js"

/**
 * The one log line of a session report: its non-personal fields only (never the address or the
 * user agent). `POST /sessions` logs at Info; the backend's own `/init` reports, one per page view,
 * at Debug.
 */
export const logReport = (report: SessionReport, log: typeof Effect.logInfo): Effect.Effect<void> =>
  log("session report").pipe(Effect.annotateLogs({
    "session.source": report.source,
    "session.revision": report.revision,
    "session.resolution": report.resolution,
    "session.policyId": report.policy?.id ?? null,
    "session.country": report.country,
    "session.region": report.region,
    "session.language": report.language,
    "session.gpc": report.gpc,
    "session.journeyId": report.journey?.id ?? null
  }))

/**
 * Who a report is about, read from the request by the HTTP layer: user agent and the IP as stored.
 *
 * @example
 * ```ts
 * import type { Visitor } from "@svc/backend"
 *
 * // Who a session report is about: the IP as it would be stored (here masked to its /24).
 * const visitorOf = (headers: Headers, ip: string | undefined): Visitor => ({
 *   userAgent: headers.get("user-agent"),
 *   ipAddress: ip === undefined ? null : ip.replace(/\.\d+$/, ".0")
 * })
 * ```
 */
export type Visitor = Pick<SessionReport, "userAgent" | "ipAddress">

/** Reports still waiting on a slow callback beyond this are dropped (and counted in a warning). */
const MAX_IN_FLIGHT = 1000

/**
 * Hands session reports to `sessions.onReport`. Delivery happens after the response is on its way
 * (never awaited): a callback that throws, rejects or hangs never fails or delays a request. Nothing
 * is stored.
 *
 * @example
 * ```ts
 * import { SessionReports } from "@svc/backend"
 * import { Effect } from "effect"
 *
 * // A page rendered on the server resolved its rule from a cached manifest: report it as POST /sessions would.
 * const rendered = Effect.flatMap(SessionReports, (sessions) =>
 *   sessions.receive({
 *     source: "render", revision: "Jx2fQ9cVt4mB0aLr7sKe1w", resolution: "matched", country: "DE", region: null,
 *     language: "de", gpc: false,
 *     policy: { id: "eu", fingerprint: "q3M8vNw1Zk2Ry5Tb9Lh0Pa", matchedBy: "country", model: "opt-in" }
 *   }, { userAgent: "Mozilla/5.0", ipAddress: "203.0.113.0" }))
 * ```
 */
export class SessionReports extends Effect.Service<SessionReports>()("@svc/backend/SessionReports", {
  effect: Effect.gen(function*() {
    const config = yield* SvcConfig
    const onReport = config.sessions.onReport
    const runtime = yield* Effect.runtime<never>()
    const runLog = Runtime.runFork(runtime)
    let inFlight = 0
    let dropped = 0

    const failed = (error: unknown) =>
      runLog(
        Effect.logWarning("sessions.onReport failed").pipe(
          Effect.annotateLogs({ error: error instanceof Error ? error.message : String(error) })
        )
      )

    const settle = () => {
      inFlight--
    }

    const deliver = (report: SessionReport): void => {
      if (onReport === undefined) return
      if (inFlight >= MAX_IN_FLIGHT) {
        if (dropped++ % 1000 === 0) {
          runLog(
            Effect.logWarning("sessions.onReport is not keeping up; reports dropped").pipe(
              Effect.annotateLogs({ dropped })
            )
          )
        }
        return
      }
      inFlight++
      setImmediate(() => {
        try {
          Promise.resolve(onReport(report)).then(settle, (error) => {
            settle()
            failed(error)
          })
        } catch (error) {
          settle()
          failed(error)
        }
      })
    }

    /** A report from `POST /sessions`: logged, then delivered. */
    const receive = (input: SessionReportInput, visitor: Visitor) =>
      Effect.gen(function*() {
        const report: SessionReport = { ...input, ...visitor, receivedAt: new Date() }
        yield* logReport(report, Effect.logInfo)
        deliver(report)
      })

    return { enabled: onReport !== undefined, deliver, receive } as const
  })
}) {}
