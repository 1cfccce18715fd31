import { HttpLayerRouter, HttpServerRequest } from "@effect/platform"
import { Context, Effect } from "effect"

/**
 * The address of the TCP peer a request arrived from, as the host server saw it (for example
 * `req.socket.remoteAddress`). It reaches svc beside the request, never in a header, so a client
 * cannot forge it; the configured IP headers still take precedence when present.
 */
export class PeerAddress extends Context.Tag("@svc/backend/PeerAddress")<PeerAddress, string>() {}

const withPeerAddress = <A, E, R>(app: Effect.Effect<A, E, R>) =>
  Effect.flatMap(Effect.serviceOption(PeerAddress), (peer) =>
    peer._tag === "None"
      ? app
      : Effect.updateService(app, HttpServerRequest.HttpServerRequest, (request) =>
        request.modify({ remoteAddress: peer.value })))

/**
 * Router-wide middleware for the web handler: a web `Request` carries no peer address, so the
 * handler passes it as `PeerAddress` and this puts it on the request before routes see it.
 */
export const PeerAddressLive = HttpLayerRouter.middleware(withPeerAddress, { global: true })
