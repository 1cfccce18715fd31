import { HttpApiMiddleware, HttpApiSecurity } from "@effect/platform"
import { Schema } from "effect"
import { RateLimitedWire, UnauthorizedWire } from "./errors.js"

/**
 * `Authorization: Bearer <API_KEY>` on the administrative endpoints. With `rateLimit` configured it
 * also counts the call against the key's limit, hence the 429.
 */
export class ApiKeyAuth extends HttpApiMiddleware.Tag<ApiKeyAuth>()("ApiKeyAuth", {
  failure: Schema.Union(UnauthorizedWire, RateLimitedWire),
  security: { apiKey: HttpApiSecurity.bearer }
}) {}

/** The per-client-IP limit of the public writes (`POST /subjects`, `PATCH /subjects/:id`, `POST /sessions`). */
export class PublicWriteLimit extends HttpApiMiddleware.Tag<PublicWriteLimit>()("PublicWriteLimit", {
  failure: RateLimitedWire
}) {}

/** Per-client-IP limit of `GET /init`: off unless `rateLimit.init` is configured. */
export class InitLimit extends HttpApiMiddleware.Tag<InitLimit>()("InitLimit", { failure: RateLimitedWire }) {}

/** Per-client-IP limit of `GET /manifest`: off unless `rateLimit.manifest` is configured. */
export class ManifestLimit
  extends HttpApiMiddleware.Tag<ManifestLimit>()("ManifestLimit", { failure: RateLimitedWire }) {}
