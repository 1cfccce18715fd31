import { Context } from "effect"

/**
 * Whether the server hosting the instance is draining for shutdown: `/health/ready` then answers
 * 503 so a load balancer stops sending new requests. The bundled server (`startServer`, `svc serve`)
 * sets it through `SvcLayerOptions.draining`; a host composing svc keeps it `false` unless it does.
 */
export class Draining extends Context.Reference<Draining>()("@svc/backend/Draining", {
  defaultValue: (): () => boolean => () => false
}) {}
