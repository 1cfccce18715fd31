import { HttpApiMiddleware, HttpApiSecurity } from "@effect/platform"
import { Schema } from "effect"
import { RateLimitedWire, UnauthorizedWire } from "./errors.js"

/**
 * `Authorization: Bearer <API_KEY>` on the administrative endpoints. With `rateLimit` configured it
 * also counts the call against the key's limit, hence the 429.
 *
 * @example
 * ```ts
 * import { ApiKeyAuth, Unauthorized } from "@svc/api"
 * import { Effect, Layer, Redacted } from "effect"
 *
 * // A fake svc for integration tests, built from the contract, accepts one fixed key.
 * const TestKeyAuth = Layer.succeed(ApiKeyAuth, ApiKeyAuth.of({
 *   apiKey: (token) =>
 *     Redacted.value(token) === "test-key-5f2c9e1a"
 *       ? Effect.void
 *       : Effect.fail(new Unauthorized({ message: "A valid API key is required: Authorization: Bearer <API_KEY>" }))
 * }))
 * ```
 */
export class ApiKeyAuth extends HttpApiMiddleware.Tag<ApiKeyAuth>()("ApiKeyAuth", {
  failure: Schema.Union(UnauthorizedWire, RateLimitedWire),
  security: { apiKey: HttpApiSecurity.bearer }
}) {}

/**
 * The per-client-IP limit of the public writes (`POST /subjects`, `PATCH /subjects/:id`, `POST /sessions`).
 *
 * @example
 * ```ts
 * import { PublicWriteLimit, RateLimited } from "@svc/api"
 * import { Effect, Layer } from "effect"
 *
 * // A fake svc that limits every save, to test that the banner keeps the choice and retries later.
 * const EveryWriteLimited = Layer.succeed(
 *   PublicWriteLimit,
 *   Effect.fail(new RateLimited({ message: "Too many requests: retry in 30 s" }))
 * )
 * ```
 */
export class PublicWriteLimit extends HttpApiMiddleware.Tag<PublicWriteLimit>()("PublicWriteLimit", {
  failure: RateLimitedWire
}) {}

/**
 * Per-client-IP limit of `GET /init`: off unless `rateLimit.init` is configured.
 *
 * @example
 * ```ts
 * import { InitLimit } from "@svc/api"
 * import { Effect, Layer } from "effect"
 *
 * // A fake svc in tests serves /init without any limit.
 * const NoInitLimit = Layer.succeed(InitLimit, Effect.void)
 * ```
 */
export class InitLimit extends HttpApiMiddleware.Tag<InitLimit>()("InitLimit", { failure: RateLimitedWire }) {}

/**
 * Per-client-IP limit of `GET /manifest`: off unless `rateLimit.manifest` is configured.
 *
 * @example
 * ```ts
 * import { HttpServerRequest } from "@effect/platform"
 * import { ManifestLimit, RateLimited } from "@svc/api"
 * import { Effect, Layer, Option } from "effect"
 *
 * // A fake svc that refuses the manifest to one address, to test a host's fallback to its cached copy.
 * const BlockedAddress = Layer.succeed(
 *   ManifestLimit,
 *   Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
 *     Option.getOrUndefined(request.remoteAddress) === "203.0.113.7"
 *       ? Effect.fail(new RateLimited({ message: "Too many requests: retry in 60 s" }))
 *       : Effect.void)
 * )
 * ```
 */
export class ManifestLimit
  extends HttpApiMiddleware.Tag<ManifestLimit>()("ManifestLimit", { failure: RateLimitedWire }) {}
