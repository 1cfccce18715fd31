import { HttpApiClient, HttpClient, type HttpClientResponse, HttpClientRequest } from "@effect/platform"
import { SvcApi } from "@svc/api"
import { Context, Effect, Option } from "effect"
import { CLIENT_VERSION, POLICY_CONTRACT } from "./version.js"

/** Headers the HTTP layer applies: `under` sits beneath the endpoint's own headers, `over` replaces everything. */
export interface HeaderLayers {
  readonly under: Readonly<Record<string, string>>
  readonly over: Readonly<Record<string, string>>
}

/**
 * Per-call state shared between the runner and the HTTP layer: the headers of this call, and the
 * response once it arrives (so a failed decode still knows its status, headers and body).
 */
export interface CallState {
  readonly headers: HeaderLayers
  response: HttpClientResponse.HttpClientResponse | undefined
}
export class CurrentCall extends Context.Tag("@svc/client/CurrentCall")<CurrentCall, CallState>() {}

export const versionHeaders = {
  accept: "application/json",
  "x-svc-version": CLIENT_VERSION,
  "x-svc-policy-contract": POLICY_CONTRACT
} as const

const applyHeaders = (request: HttpClientRequest.HttpClientRequest, layers: HeaderLayers) =>
  HttpClientRequest.setHeaders(request, { ...layers.under, ...request.headers, ...layers.over })

/** Applies the headers (static, or this call's) and records the response of the call. */
export const withSvcHeaders = (client: HttpClient.HttpClient, fixed: HeaderLayers): HttpClient.HttpClient =>
  client.pipe(
    HttpClient.mapRequestEffect((request) =>
      Effect.map(Effect.serviceOption(CurrentCall), (call) =>
        applyHeaders(request, Option.isSome(call) ? call.value.headers : fixed))
    ),
    HttpClient.tap((response) =>
      Effect.map(Effect.serviceOption(CurrentCall), (call) => {
        if (Option.isSome(call)) call.value.response = response
      })
    )
  )

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
export const makeSvcApiClient = (options: SvcApiClientOptions): Effect.Effect<SvcApiClient, never, HttpClient.HttpClient> =>
  build(options)
