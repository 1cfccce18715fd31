import type { SvcCallOptions } from "../call-options.js"
import type { SvcApiClient } from "../effect-client.js"
import type { SvcIssue } from "../errors.js"
import type { SvcResult } from "../result.js"
import { bodyOperation, operation, type Runtime } from "../runner.js"
import { checkHeaderInput, checkPart, defined, endpointOf, objectIssue } from "../validate.js"
import { type CodesOf, callMethod, type SuccessOf } from "./define.js"
import { callOf } from "../transport.js"

type Policy = SvcApiClient["policy"]

/**
 * `status()`'s data: the backend's version and time, and how it sees this caller.
 *
 * @example
 * ```ts
 * import type { StatusData } from "@svc/client"
 *
 * // A health page: version, clock skew, and the country svc resolves this server to.
 * const describe = (status: StatusData) => ({
 *   version: status.version,
 *   skewMs: Math.abs(status.timestamp.getTime() - Date.now()),
 *   seenFrom: status.client.country ?? "unknown"
 * })
 * ```
 */
export type StatusData = SuccessOf<SvcApiClient["status"]["status"]>
/**
 * The codes `status()` can fail with.
 *
 * @example
 * ```ts
 * import type { StatusCode } from "@svc/client"
 *
 * // A synthetic monitor tells "svc is down" from "the network is".
 * const monitorState = (code: StatusCode) =>
 *   code === "NETWORK_ERROR" || code === "TIMEOUT"
 *     ? "unreachable"
 *     : code === "UNEXPECTED_RESPONSE"
 *     ? "misrouted"
 *     : "failing"
 * ```
 */
export type StatusCode = CodesOf<SvcApiClient["status"]["status"]>
/**
 * `ready()`'s data: `{ status: "ready" }`.
 *
 * @example
 * ```ts
 * import type { ReadyData } from "@svc/client"
 * import { ok } from "@svc/client/testing"
 *
 * // A deploy gate's test: the mock answers ready.
 * const ready = { status: "ready" } satisfies ReadyData
 * const answer = ok(ready)
 * ```
 */
export type ReadyData = SuccessOf<SvcApiClient["health"]["ready"]>
/**
 * The codes `ready()` can fail with: `NOT_READY` (503) while the database is unreachable, its schema
 * behind, or the instance draining.
 *
 * @example
 * ```ts
 * import type { ReadyCode, SvcClient } from "@svc/client"
 *
 * // A deploy waits for readiness; NOT_READY is worth waiting for, a wrong URL is not.
 * const worthWaiting = (code: ReadyCode) => code === "NOT_READY" || code === "NETWORK_ERROR" || code === "TIMEOUT"
 * export async function waitUntilReady(svc: SvcClient) {
 *   for (let attempt = 0; attempt < 30; attempt++) {
 *     const result = await svc.ready({ retry: false })
 *     if (result.ok) return
 *     if (!worthWaiting(result.error.code)) throw result.error
 *     await new Promise((resolve) => setTimeout(resolve, 2000))
 *   }
 * }
 * ```
 */
export type ReadyCode = CodesOf<SvcApiClient["health"]["ready"]>

/**
 * Who `init` resolves the configuration for: the visitor's language and location overrides and
 * GPC signal. Omitted, the backend resolves for this server.
 *
 * @example
 * ```ts
 * import type { InitInput } from "@svc/client"
 *
 * // Server-side rendering: resolve for the visitor, not for the server, from what the CDN tells us.
 * const initInputFor = (request: Request): InitInput => ({
 *   language: request.headers.get("accept-language") ?? undefined,
 *   country: request.headers.get("cf-ipcountry") ?? undefined,
 *   gpc: request.headers.get("sec-gpc") === "1"
 * })
 * ```
 */
export interface InitInput {
  /** Sent as `Accept-Language` (a visitor's header may be passed on as it is). */
  readonly language?: string | undefined
  /** Country override, ISO 3166-1 alpha-2 (`x-svc-country`). */
  readonly country?: string | undefined
  /** Region override: the subdivision code (`CA`) or with its country (`US-CA`) (`x-svc-region`). */
  readonly region?: string | undefined
  /** Global Privacy Control signal (`x-svc-gpc`). */
  readonly gpc?: boolean | undefined
}
/**
 * `init`'s data: the configuration resolved for one visitor (the policy rule, location, language,
 * translations, vendors, the snapshot token a save must carry).
 *
 * @example
 * ```ts
 * import type { InitData } from "@svc/client"
 *
 * // Server-side rendering decides whether to render the banner at all.
 * const needsBanner = (init: InitData) =>
 *   init.policyResolution.status === "matched" && init.policy !== null && init.policy.model !== "none"
 * ```
 */
export type InitData = SuccessOf<Policy["init"]>
/**
 * The codes `init` can fail with.
 *
 * @example
 * ```ts
 * import type { InitCode } from "@svc/client"
 *
 * // When /init fails the page renders with the strictest default: no optional category until asked.
 * const fallbackFor = (code: InitCode) => ({ banner: "client-side", reason: code, optionalCategories: "denied" })
 * ```
 */
export type InitCode = CodesOf<Policy["init"]>

/**
 * What `manifest` asks for: one language's translations, and the `etag` of the manifest held.
 *
 * @example
 * ```ts
 * import type { ManifestInput } from "@svc/client"
 *
 * // Asking again with the ETag of the copy held: an unchanged manifest costs a 304.
 * const held = { etag: "\"r-2026-02-01T10:00:00Z\"" }
 * const input = { language: "de", ifNoneMatch: held.etag } satisfies ManifestInput
 * ```
 */
export interface ManifestInput {
  /** Slices translations to one language. */
  readonly language?: string | undefined
  /** The `etag` of a manifest held; a match answers `not-modified`. */
  readonly ifNoneMatch?: string | undefined
}
/**
 * The geo-independent policy manifest (`GET /manifest`): every policy pack, language and vendor.
 *
 * @example
 * ```ts
 * import type { Manifest } from "@svc/client"
 *
 * // A host that resolves policies itself looks up the pack for a country in its cached manifest.
 * const packFor = (manifest: Manifest, country: string) =>
 *   manifest.policyPacks.find((pack) => pack.match.countries?.includes(country)) ??
 *   manifest.policyPacks.find((pack) => pack.match.default === true)
 * ```
 */
export type Manifest = Exclude<SuccessOf<Policy["manifest"]>, void | undefined>
/**
 * `manifest`'s data: the manifest with its `etag`, or `not-modified` when `ifNoneMatch` matched.
 *
 * @example
 * ```ts
 * import type { Manifest, ManifestData } from "@svc/client"
 *
 * // A host's cache keeps its copy on `not-modified` and replaces it otherwise.
 * let cached: { manifest: Manifest; etag: string | null } | undefined
 * const remember = (data: ManifestData) => {
 *   if (data.status === "modified") cached = { manifest: data.manifest, etag: data.etag }
 *   return cached?.manifest
 * }
 * ```
 */
export type ManifestData =
  | { readonly status: "modified"; readonly manifest: Manifest; readonly etag: string | null }
  | { readonly status: "not-modified"; readonly etag: string | null }
/**
 * The codes `manifest` can fail with.
 *
 * @example
 * ```ts
 * import type { ManifestCode } from "@svc/client"
 *
 * // A host keeps serving its cached manifest through any outage; only a bad call is its own bug.
 * const keepCachedCopy = (code: ManifestCode) => code !== "INVALID_INPUT"
 * ```
 */
export type ManifestCode = CodesOf<Policy["manifest"]>

export interface ServiceMethods {
  /** `GET /status`: version, time, and how the backend sees this caller. */
  readonly status: (options?: SvcCallOptions) => Promise<SvcResult<StatusData, StatusCode>>
  /**
   * `GET /health/ready`: `{ status: "ready" }` when the backend's database answers and its schema
   * is current, else `NOT_READY` (503, retried like any 503; pass `{ retry: false }` for one look).
   */
  readonly ready: (options?: SvcCallOptions) => Promise<SvcResult<ReadyData, ReadyCode>>
  /** `GET /init`: the configuration resolved for one visitor. Omitted inputs: the backend sees this server. */
  readonly init: (input?: InitInput, options?: SvcCallOptions) => Promise<SvcResult<InitData, InitCode>>
  /** `GET /manifest`: the geo-independent policy manifest, or `not-modified` for a matching `ifNoneMatch`. */
  readonly manifest: (input?: ManifestInput, options?: SvcCallOptions) => Promise<SvcResult<ManifestData, ManifestCode>>
}

const manifest = endpointOf("policy", "manifest")

export const serviceMethods = (runtime: Runtime): ServiceMethods => ({
  status: (options) =>
    callMethod<StatusData, StatusCode>(
      runtime,
      { name: "status", needsKey: false },
      options,
      () => (bodyOperation("none", callOf("status", "status", {})))
    ),

  ready: (options) =>
    callMethod<ReadyData, ReadyCode>(
      runtime,
      { name: "ready", needsKey: false },
      options,
      () => (bodyOperation("none", callOf("health", "ready", {})))
    ),

  init: (input = {}, options) =>
    callMethod<InitData, InitCode>(runtime, { name: "init", needsKey: false }, options, () => {
      const shape = objectIssue(input, [], "optional language, country, region and gpc")
      if (shape.length > 0) return shape
      const issues: Array<SvcIssue> = [
        ...checkHeaderInput(input.language, ["language"]),
        ...checkHeaderInput(input.country, ["country"], /^[A-Za-z]{2}$/),
        ...checkHeaderInput(input.region, ["region"], /^(?:[A-Za-z]{2}-)?[A-Za-z0-9]{1,3}$/)
      ]
      if (input.gpc !== undefined && typeof input.gpc !== "boolean") {
        issues.push({ path: ["gpc"], message: "must be a boolean" })
      }
      if (issues.length > 0) return issues
      const headers = defined({
        "accept-language": input.language,
        "x-svc-country": input.country,
        "x-svc-region": input.region,
        "x-svc-gpc": input.gpc === undefined ? undefined : input.gpc ? "1" : "0"
      })
      return bodyOperation("none", callOf("policy", "init", { urlParams: {}, headers }))
    }),

  manifest: (input = {}, options) =>
    callMethod<ManifestData, ManifestCode>(runtime, { name: "manifest", needsKey: false }, options, () => {
      const shape = objectIssue(input, [], "optional language and ifNoneMatch")
      if (shape.length > 0) return shape
      const urlParams = defined({ language: input.language })
      const issues = [
        ...checkPart(manifest.urlParamsSchema, urlParams),
        ...checkHeaderInput(input.ifNoneMatch, ["ifNoneMatch"])
      ]
      if (issues.length > 0) return issues
      const headers = defined({ "if-none-match": input.ifNoneMatch })
      return operation("none", callOf("policy", "manifest", { urlParams, headers }), (
        value,
        response
      ): { readonly data: ManifestData } | string => {
        const etag = response.headers["etag"] ?? null
        if (response.status === 304)
          return { data: { status: "not-modified", etag: etag ?? input.ifNoneMatch ?? null } }
        return value === undefined
          ? "is empty, expected a manifest"
          : { data: { status: "modified", manifest: value, etag } }
      })
    })
})
