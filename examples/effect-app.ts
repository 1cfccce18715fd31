import { HttpLayerRouter, HttpServerResponse } from "@effect/platform"
import { NodeHttpServer, NodeRuntime } from "@effect/platform-node"
import { svcInstance } from "@svc/backend"
import { Effect, Layer } from "effect"
import { createServer } from "node:http"

// migrate: pending migrations run when the layer starts (or run `svc migrate` before deploying).
const svc = svcInstance({ database: { dialect: "sqlite", url: "./svc.db" }, basePath: "/consent" }, { migrate: true })
const Hello = HttpLayerRouter.add("GET", "/hello", Effect.succeed(HttpServerResponse.text("hi")))

HttpLayerRouter.serve(Layer.mergeAll(svc.layer, Hello)).pipe(
  Layer.provide(NodeHttpServer.layer(createServer, { port: Number(process.env.PORT ?? 3000) })),
  Layer.launch,
  NodeRuntime.runMain
)
