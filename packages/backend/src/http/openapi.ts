import { HttpApiScalar, HttpLayerRouter, HttpServerRequest, OpenApi } from "@effect/platform"
import { SvcApi } from "@svc/api"
import { Effect, Layer } from "effect"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { pathToFileURL } from "node:url"
import { SvcConfig, type ResolvedConfig } from "../config/resolved.js"
import { type StaticBody, staticBody, staticResponse } from "./compression.js"

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

/** Text for an HTML element's content or a double-quoted attribute. */
const escapeHtml = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;")

/** JSON inside a `<script>` element: nothing in it may close the element. */
const scriptJson = (value: unknown) =>
  JSON.stringify(value).replace(/</g, "\\u003c").replace(/>/g, "\\u003e").replace(/&/g, "\\u0026")
    .replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029")

/**
 * The Scalar reference UI that @effect/platform ships (its `HttpApiScalar` inlines this 3.3 MB
 * script into every page). The module is already loaded by the platform's index, so this costs
 * no second copy; `undefined` if a platform release moves it (then /docs inlines it as before).
 */
const scalarScript = Effect.promise(async () => {
  try {
    const root = dirname(createRequire(import.meta.url).resolve("@effect/platform/package.json"))
    const module = await import(pathToFileURL(join(root, "dist", "esm", "internal", "httpApiScalar.js")).href) as {
      javascript?: unknown
    }
    return typeof module.javascript === "string" ? module.javascript : undefined
  } catch {
    return undefined
  }
})

/**
 * The `/docs` page: the OpenAPI document inline and the reference UI as its own script, which is
 * compressed once and cached for a year by browsers (its URL carries its hash).
 */
const docsPage = (config: ResolvedConfig, document: unknown, scriptUrl: string) => `<!doctype html>
<html>
  <head>
    <meta charset="utf-8" />
    <title>${escapeHtml(config.openapi.title)}</title>
    <meta name="viewport" content="width=device-width, initial-scale=1" />
  </head>
  <body>
    <script id="api-reference" type="application/json">${scriptJson(document)}</script>
    <script>document.getElementById("api-reference").dataset.configuration = JSON.stringify({ _integration: "html" })</script>
    <script src="${escapeHtml(scriptUrl)}"></script>
  </body>
</html>
`

const NO_CACHE = { "cache-control": "no-cache" }
const IMMUTABLE = { "cache-control": "public, max-age=31536000, immutable" }

const staticRoute = (path: string, body: StaticBody, headers: Record<string, string>) =>
  HttpLayerRouter.add(
    "GET",
    path as `/${string}`,
    Effect.map(HttpServerRequest.HttpServerRequest, (request) => staticResponse(body, request.headers["if-none-match"], headers))
  )

/**
 * `GET <specPath>`, the HTML reference at `/docs` and its script at `/docs/scalar.js`, when
 * `openapi.enabled`. Each body is built once, with a strong ETag, and compressed once per coding.
 */
export const OpenApiRoutesLive = Layer.unwrapEffect(
  Effect.gen(function*() {
    const config = yield* SvcConfig
    if (!config.openapi.enabled) return Layer.empty
    const document = openApiDocument(config)
    const spec = staticBody(JSON.stringify(document), "application/json")
    const specRoute = staticRoute(config.openapi.specPath, spec, NO_CACHE)
    const scalar = yield* scalarScript
    if (scalar === undefined) {
      return Layer.mergeAll(specRoute, HttpApiScalar.layerHttpLayerRouter({ api: configuredApi(config), path: "/docs" }))
    }
    const script = staticBody(scalar, "application/javascript; charset=utf-8")
    // Relative to `<basePath>/docs`, so it holds behind a proxy that moves the mount.
    const page = staticBody(docsPage(config, document, `docs/scalar.js?v=${script.etag.slice(1, 13)}`), "text/html; charset=utf-8")
    return Layer.mergeAll(
      specRoute,
      staticRoute("/docs", page, NO_CACHE),
      staticRoute("/docs/scalar.js", script, IMMUTABLE)
    )
  })
)
