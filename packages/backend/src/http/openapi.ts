import { HttpApiScalar, HttpLayerRouter, HttpServerResponse, OpenApi } from "@effect/platform"
import { SvcApi } from "@svc/api"
import { Effect, Layer } from "effect"
import { SvcConfig, type ResolvedConfig } from "../config/resolved.js"

/** The contract annotated with this instance's title, version and documented server. */
export const configuredApi = (config: ResolvedConfig) =>
  SvcApi.annotate(OpenApi.Title, config.openapi.title)
    .annotate(OpenApi.Version, config.version)
    .annotate(OpenApi.Servers, [{ url: config.openapi.basePath === "" ? "/" : config.openapi.basePath }])

const scriptPath = (summary: string) => ({
  get: {
    summary,
    tags: ["scripts"],
    responses: {
      "200": { description: "JavaScript bundle", content: { "application/javascript": {} } },
      "304": { description: "Not modified" },
      "503": { description: "Bundle file missing" }
    }
  }
})

/**
 * The OpenAPI document: every HttpApi route, plus the raw routes the HttpApi cannot describe
 * (the document itself and the enabled script bundles).
 */
export const openApiDocument = (config: ResolvedConfig) => {
  const spec = OpenApi.fromApi(configuredApi(config)) as unknown as { paths: Record<string, unknown> }
  const paths: Record<string, unknown> = { ...spec.paths }
  paths[config.openapi.specPath] = {
    get: { summary: "This OpenAPI document", tags: ["meta"], responses: { "200": { description: "OpenAPI 3.1" } } }
  }
  if (config.script.enabled) {
    paths[config.script.path] = scriptPath("Banner and preferences UI bundle")
    paths[config.script.headlessPath] = scriptPath("Headless consent runtime bundle")
    paths[config.script.iabPath] = scriptPath("IAB TCF CMP bundle")
  }
  return { ...spec, paths }
}

/** `GET <specPath>` and the HTML reference at `/docs`, when `openapi.enabled`. */
export const OpenApiRoutesLive = Layer.unwrapEffect(
  Effect.gen(function*() {
    const config = yield* SvcConfig
    if (!config.openapi.enabled) return Layer.empty
    const body = JSON.stringify(openApiDocument(config))
    const specRoute = HttpLayerRouter.add(
      "GET",
      config.openapi.specPath as `/${string}`,
      Effect.sync(() =>
        HttpServerResponse.text(body, { contentType: "application/json", headers: { "cache-control": "no-cache" } })
      )
    )
    const docs = HttpApiScalar.layerHttpLayerRouter({ api: configuredApi(config), path: "/docs" })
    return Layer.mergeAll(specRoute, docs)
  })
)
