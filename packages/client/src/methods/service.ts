import type { SvcCallOptions } from "../call-options.js"
import type { SvcApiClient } from "../effect-client.js"
import type { SvcIssue } from "../errors.js"
import type { SvcResult } from "../result.js"
import type { Runtime } from "../runner.js"
import { checkHeaderInput, checkPart, defined, endpointOf, objectIssue } from "../validate.js"
import { type CodesOf, callMethod, type SuccessOf } from "./define.js"
import { callOf } from "../transport.js"

type Policy = SvcApiClient["policy"]

export type StatusData = SuccessOf<SvcApiClient["status"]["status"]>
export type StatusCode = CodesOf<SvcApiClient["status"]["status"]>
export type ReadyData = SuccessOf<SvcApiClient["health"]["ready"]>
export type ReadyCode = CodesOf<SvcApiClient["health"]["ready"]>

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
export type InitData = SuccessOf<Policy["init"]>
export type InitCode = CodesOf<Policy["init"]>

export interface ManifestInput {
  /** Slices translations to one language. */
  readonly language?: string | undefined
  /** The `etag` of a manifest held; a match answers `not-modified`. */
  readonly ifNoneMatch?: string | undefined
}
export type Manifest = Exclude<SuccessOf<Policy["manifest"]>, void | undefined>
export type ManifestData =
  | { readonly status: "modified"; readonly manifest: Manifest; readonly etag: string | null }
  | { readonly status: "not-modified"; readonly etag: string | null }
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
    callMethod<StatusData, StatusCode>(runtime, { name: "status", needsKey: false }, options, () => ({
      auth: "none",
      call: callOf("status", "status", {}),
      toData: (value) => ({ data: value as StatusData })
    })),

  ready: (options) =>
    callMethod<ReadyData, ReadyCode>(runtime, { name: "ready", needsKey: false }, options, () => ({
      auth: "none",
      call: callOf("health", "ready", {}),
      toData: (value) => ({ data: value as ReadyData })
    })),

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
      return {
        auth: "none",
        call: callOf("policy", "init", { urlParams: {}, headers }),
        toData: (value) => ({ data: value as InitData })
      }
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
      return {
        auth: "none",
        call: callOf("policy", "manifest", { urlParams, headers }),
        toData: (value, response) => {
          const etag = response.headers["etag"] ?? null
          if (response.status === 304)
            return { data: { status: "not-modified", etag: etag ?? input.ifNoneMatch ?? null } }
          return value === undefined
            ? "is empty, expected a manifest"
            : { data: { status: "modified", manifest: value as Manifest, etag } }
        }
      }
    })
})
