import { HttpApiMiddleware, HttpApiSecurity } from "@effect/platform"
import { UnauthorizedWire } from "./errors.js"

/** `Authorization: Bearer <API_KEY>` on the administrative endpoints. */
export class ApiKeyAuth extends HttpApiMiddleware.Tag<ApiKeyAuth>()("ApiKeyAuth", {
  failure: UnauthorizedWire,
  security: { apiKey: HttpApiSecurity.bearer }
}) {}
