import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify"
import type { SvcLayerOptions } from "../instance/layer.js"
import type { SvcInstance } from "../instance/svc-instance.js"
import { instanceOf, type SvcSource } from "./instance.js"
import { toWebRequest } from "./node.js"

export type { SvcSource } from "./instance.js"

/**
 * svc as a Fastify plugin: its routes under `basePath`, inside their own encapsulated context
 * (whose body parsers are switched off, so svc reads the raw body itself). Register it without
 * a `prefix`, or with one that `basePath` starts with.
 *
 * @example
 * ```ts
 * import { svcFastify } from "@svc/backend/fastify"
 * import Fastify from "fastify"
 *
 * const app = Fastify()
 * const svc = svcFastify({ database: { dialect: "sqlite", url: "./svc.db" }, basePath: "/consent" }, { migrate: true })
 * await app.register(svc)
 * app.post("/orders", async (request) => ({ received: request.body })) // the app's JSON parser still applies here
 * app.addHook("onClose", () => svc.instance.dispose())
 * await app.listen({ port: 3000 })
 * ```
 */
export const svcFastify = (
  source: SvcSource,
  layerOptions?: SvcLayerOptions
): FastifyPluginAsync & { readonly instance: SvcInstance } => {
  const instance = instanceOf(source, layerOptions)
  const plugin: FastifyPluginAsync = async (fastify) => {
    if (!instance.basePath.startsWith(fastify.prefix)) {
      throw new Error(`svc basePath "${instance.basePath}" is outside the plugin prefix "${fastify.prefix}"`)
    }
    const mount = instance.basePath.slice(fastify.prefix.length)
    fastify.removeAllContentTypeParsers()
    fastify.addContentTypeParser("*", (_request, _payload, done) => done(null, undefined))
    const handler = async (request: FastifyRequest, reply: FastifyReply) => {
      const aborted = new AbortController()
      reply.raw.once("close", () => {
        if (!reply.raw.writableFinished) aborted.abort()
      })
      const response = await instance.handler(toWebRequest(request.raw, aborted.signal), {
        remoteAddress: request.raw.socket.remoteAddress
      })
      return reply.send(response)
    }
    fastify.all(`${mount}/*`, handler)
    if (mount !== "") fastify.all(mount, handler)
  }
  return Object.assign(plugin, { instance })
}
