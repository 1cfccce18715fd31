import { HttpApiClient, HttpClient, HttpClientRequest } from "@effect/platform"
import { SvcApi } from "@svc/api"
import type { Effect } from "effect"
import { CLIENT_VERSION, POLICY_CONTRACT } from "./version.js"

/** Headers the HTTP layer applies: `under` sits beneath the endpoint's own headers, `over` replaces everything. */
export interface HeaderLayers {
  readonly under: Readonly<Record<string, string>>
  readonly over: Readonly<Record<string, string>>
}

export const versionHeaders = {
  accept: "application/json",
  "x-svc-version": CLIENT_VERSION,
  "x-svc-policy-contract": POLICY_CONTRACT
} as const

const applyHeaders = (request: HttpClientRequest.HttpClientRequest, layers: HeaderLayers) =>
  HttpClientRequest.setHeaders(request, { ...layers.under, ...request.headers, ...layers.over })

/** Applies the headers to every request. */
const withSvcHeaders = (client: HttpClient.HttpClient, layers: HeaderLayers): HttpClient.HttpClient =>
  HttpClient.mapRequest(client, (request) => applyHeaders(request, layers))

export interface SvcApiClientOptions {
  /** Backend URL including its mount path. */
  readonly baseUrl: string
  /** Sent as `Authorization: Bearer <key>` on every request. */
  readonly apiKey?: string | undefined
  /** Extra headers for every request. */
  readonly headers?: Readonly<Record<string, string>> | undefined
}

const build = (options: SvcApiClientOptions) => {
  const fixed: HeaderLayers = {
    under: options.headers ?? {},
    over: {
      ...versionHeaders,
      ...(options.apiKey === undefined ? {} : { authorization: `Bearer ${options.apiKey}` })
    }
  }
  return HttpApiClient.make(SvcApi, {
    baseUrl: options.baseUrl,
    transformClient: (client) => withSvcHeaders(client, fixed)
  })
}

/** The Effect-native client derived from the `@svc/api` contract. */
export type SvcApiClient = Effect.Effect.Success<ReturnType<typeof build>>

/**
 * The typed `HttpApiClient` of `@svc/api` with the base URL, API key and version headers applied,
 * for Effect programs. Provide an `HttpClient` (for example `FetchHttpClient.layer`). Options are
 * not validated here; `createSvcClient` is the checked, promise-based entry.
 */
export const makeSvcApiClient = (
  options: SvcApiClientOptions
): Effect.Effect<SvcApiClient, never, HttpClient.HttpClient> => build(options)
