import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Status } from "@svc/schema"

/**
 * `GET /status`: the backend's version and time, and how it sees the caller (IP, country, region).
 *
 * @example
 * ```ts
 * import { HttpApi, HttpApiClient } from "@effect/platform"
 * import { StatusGroup } from "@svc/api"
 * import { Effect } from "effect"
 *
 * // A deploy check: the instance runs the release just rolled out, and its clock is not off.
 * class Status extends HttpApi.make("status").add(StatusGroup) {}
 * const deployed = (release: string) =>
 *   Effect.gen(function*() {
 *     const svc = yield* HttpApiClient.make(Status, { baseUrl: "https://consent.example.com" })
 *     const status = yield* svc.status.status()
 *     return status.version === release && Math.abs(status.timestamp.getTime() - Date.now()) < 60_000
 *   })
 * ```
 */
export class StatusGroup extends HttpApiGroup.make("status")
  .add(
    HttpApiEndpoint.get("status", "/status")
      .addSuccess(Status)
      .annotate(OpenApi.Summary, "Service status and configured version")
  ) {}
