import { HttpApiClient, HttpClient, HttpClientRequest } from "@effect/platform"
import { SvcApi } from "@svc/api"
import { Context, type Effect, Layer } from "effect"
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

/**
 * Options of `makeSvcApiClient` and `SvcHttpClient.layer`.
 *
 * @example
 * ```ts
 * import { FetchHttpClient } from "@effect/platform"
 * import { SvcHttpClient, type SvcApiClientOptions } from "@svc/client"
 * import { Config, Effect, Layer } from "effect"
 *
 * // The options read from the environment through Effect's Config, then the client layer built from them.
 * const options: Config.Config<SvcApiClientOptions> = Config.all({
 *   baseUrl: Config.string("SVC_URL"),
 *   apiKey: Config.string("SVC_API_KEY")
 * })
 * const SvcLive = Layer.unwrapEffect(Effect.map(options, SvcHttpClient.layer)).pipe(
 *   Layer.provide(FetchHttpClient.layer)
 * )
 * ```
 */
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

/**
 * The Effect-native client derived from the `@svc/api` contract.
 *
 * @example
 * ```ts
 * import type { SvcApiClient } from "@svc/client"
 * import { Effect } from "effect"
 *
 * // Code that takes the derived client as an argument; it fails with the contract's error classes.
 * const latestPrivacyPolicy = (svc: SvcApiClient) =>
 *   svc.legalDocuments.current({ path: { type: "privacy_policy" } }).pipe(
 *     Effect.map(({ policy }) => `${policy.version}, effective ${policy.effectiveDate.toISOString().slice(0, 10)}`),
 *     Effect.catchTag("NotFound", () => Effect.succeed("not published yet"))
 *   )
 * ```
 */
export type SvcApiClient = Effect.Effect.Success<ReturnType<typeof build>>

/**
 * The typed `HttpApiClient` of `@svc/api` with the base URL, API key and version headers applied,
 * for Effect programs. Provide an `HttpClient` (for example `FetchHttpClient.layer`). Options are
 * not validated here; `createSvcClient` is the checked, promise-based entry.
 *
 * @example
 * ```ts
 * import { FetchHttpClient } from "@effect/platform"
 * import { makeSvcApiClient } from "@svc/client"
 * import { Effect } from "effect"
 *
 * // A one-off Effect script: which endpoints have failed deliveries of consent events.
 * const failingEndpoints = Effect.gen(function*() {
 *   const svc = yield* makeSvcApiClient({ baseUrl: "https://consent.example.com", apiKey: process.env.SVC_API_KEY })
 *   const { deliveries } = yield* svc.events.listDeliveries({ urlParams: { status: "failed" } })
 *   return [...new Set(deliveries.map((delivery) => delivery.endpoint))]
 * }).pipe(Effect.provide(FetchHttpClient.layer))
 * ```
 */
export const makeSvcApiClient = (
  options: SvcApiClientOptions
): Effect.Effect<SvcApiClient, never, HttpClient.HttpClient> => build(options)

/**
 * The derived client as a service, for Effect programs that reach svc over HTTP: `yield*
 * SvcHttpClient` gives `makeSvcApiClient`'s client (`svc.subjects.get(...)`, …). The layer needs an
 * `HttpClient` (for example `FetchHttpClient.layer`). In the same process as the backend, the
 * `@svc/backend` services (`SvcServices.layer`) do the same with no HTTP in between.
 *
 * @example
 * ```ts
 * import { FetchHttpClient } from "@effect/platform"
 * import { SvcHttpClient } from "@svc/client"
 * import { Effect, Layer } from "effect"
 *
 * const SvcLive = SvcHttpClient.layer({
 *   baseUrl: "https://consent.example.com",
 *   apiKey: process.env.SVC_API_KEY
 * }).pipe(Layer.provide(FetchHttpClient.layer))
 * const status = Effect.flatMap(SvcHttpClient, (svc) => svc.status.status()).pipe(Effect.provide(SvcLive))
 * ```
 */
export class SvcHttpClient extends Context.Tag("@svc/client/SvcHttpClient")<SvcHttpClient, SvcApiClient>() {
  /** The client for `baseUrl` (the backend URL including its mount path), with `apiKey` sent as a bearer token. */
  static readonly layer = (
    options: SvcApiClientOptions
  ): Layer.Layer<SvcHttpClient, never, HttpClient.HttpClient> => Layer.effect(SvcHttpClient, build(options))
}
