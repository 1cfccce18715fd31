import { HttpLayerRouter, HttpServerRequest, OpenApi } from "@effect/platform"
import { SvcApi } from "@svc/api"
import { Effect, Layer } from "effect"
import { readFile } from "node:fs/promises"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { pathToFileURL } from "node:url"
import { propertyOf } from "../codec/guards.js"
import { SvcConfig, type ResolvedConfig } from "../config/resolved.js"
import { type StaticBody, staticBody, staticResponse } from "./compression.js"
import { errorResponse } from "./error-response.js"

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
 *
 * @example
 * ```ts
 * import { openApiDocument, resolveOptions } from "@svc/backend"
 * import { writeFileSync } from "node:fs"
 *
 * // CI writes the document the instance will serve, for the API gateway and for client generators.
 * const config = resolveOptions({
 *   database: { dialect: "sqlite", url: ":memory:" },
 *   basePath: "/consent",
 *   openapi: { title: "Example Inc. consent API" }
 * })
 * writeFileSync("openapi.json", JSON.stringify(openApiDocument(config), null, 2))
 * ```
 */
export const openApiDocument = (config: ResolvedConfig) => {
  const spec = OpenApi.fromApi(configuredApi(config))
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

/** JSON text inside a `<script>` element: nothing in it may close the element. */
const scriptJson = (json: string) =>
  json.replace(/</g, "\\u003c").replace(/>/g, "\\u003e").replace(/&/g, "\\u0026")
    .replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029")

/**
 * The Scalar reference UI that @effect/platform ships (its `HttpApiScalar` inlines this 3.3 MB
 * script into every page), read from the platform's file on the first `/docs` request. Read as
 * text and parsed, not imported: an imported module keeps its source (6.4 MB in memory) and its
 * string (another 6.4 MB) for the life of the process. `undefined` if a platform release moves
 * it (then `/docs` renders without the UI script, and `/docs/scalar.js` is 404).
 */
const scalarScript = Effect.promise(async (): Promise<string | undefined> => {
  try {
    const root = dirname(createRequire(import.meta.url).resolve("@effect/platform/package.json"))
    const file = join(root, "dist", "esm", "internal", "httpApiScalar.js")
    const text = await readFile(file, "utf8")
    // `export const javascript="…";`: a JSON-compatible string literal in every release so far.
    const start = text.indexOf('"', text.indexOf("export const javascript"))
    const end = text.lastIndexOf('";')
    if (start !== -1 && end > start) {
      try {
        const script: unknown = JSON.parse(text.slice(start, end + 1))
        if (typeof script === "string") return script
      } catch {
        // not JSON-compatible: import the module instead
      }
    }
    const javascript = propertyOf(await import(pathToFileURL(file).href), "javascript")
    return typeof javascript === "string" ? javascript : undefined
  } catch {
    return undefined
  }
})

/**
 * The reference UI's own configuration. A self-hosted privacy tool's docs talk to nothing but this
 * server: no toolbar ("Share" and "Generate SDKs" upload the document to the UI vendor's cloud;
 * by default it shows on localhost), no telemetry, no web fonts fetched from the vendor.
 */
const docsConfiguration = JSON.stringify({
  _integration: "html",
  showToolbar: "never",
  telemetry: false,
  withDefaultFonts: false
})

/**
 * The `/docs` page: the OpenAPI document inline and the reference UI as its own script, which is
 * compressed once and cached for a year by browsers (its URL carries its hash).
 */
const docsPage = (config: ResolvedConfig, documentJson: string, scriptUrl: string) =>
  `<!doctype html>
<html>
  <head>
    <meta charset="utf-8" />
    <title>${escapeHtml(config.openapi.title)}</title>
    <meta name="viewport" content="width=device-width, initial-scale=1" />
  </head>
  <body>
    <script id="api-reference" type="application/json">${scriptJson(documentJson)}</script>
    <script>document.getElementById("api-reference").dataset.configuration = ${
    scriptJson(JSON.stringify(docsConfiguration))
  }</script>
    <script src="${escapeHtml(scriptUrl)}"></script>
  </body>
</html>
`

const NO_CACHE = { "cache-control": "no-cache" }
const IMMUTABLE = { "cache-control": "public, max-age=31536000, immutable" }

/** `<specPath>`'s body, built on its first request (or the first `/docs` request) and kept. */
const specBody = (config: ResolvedConfig): Effect.Effect<StaticBody> =>
  Effect.sync(() => staticBody(JSON.stringify(openApiDocument(config)), "application/json"))

/** The `/docs` page and its script, built on the first request of either and kept. */
interface DocsBodies {
  readonly page: StaticBody
  readonly script: StaticBody | undefined
}

const docsBodies = (config: ResolvedConfig, spec: Effect.Effect<StaticBody>): Effect.Effect<DocsBodies> =>
  Effect.map(Effect.zip(spec, scalarScript), ([document, scalar]) => {
    const script = scalar === undefined ? undefined : staticBody(scalar, "application/javascript; charset=utf-8")
    // Relative to `<basePath>/docs`, so it holds behind a proxy that moves the mount.
    const scriptUrl = `docs/scalar.js?v=${script?.etag.slice(1, 13) ?? "missing"}`
    const page = staticBody(
      docsPage(config, new TextDecoder().decode(document.bytes), scriptUrl),
      "text/html; charset=utf-8"
    )
    return { page, script }
  })

const lazyRoute = <A>(
  path: `/${string}`,
  bodies: Effect.Effect<A>,
  pick: (bodies: A) => StaticBody | undefined,
  headers: Record<string, string>
) =>
  HttpLayerRouter.add(
    "GET",
    path,
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
      Effect.map(bodies, (all) => {
        const body = pick(all)
        return body === undefined
          ? errorResponse("ROUTE_NOT_FOUND", "The API reference UI script is not part of this installation")
          : staticResponse(body, request.headers["if-none-match"], headers)
      }))
  )

/**
 * `GET <specPath>`, the HTML reference at `/docs` and its script at `/docs/scalar.js`, when
 * `openapi.enabled`. Nothing is built at startup: the document on its first request, the page
 * and the 3.3 MB script on the first request of either; each with a strong ETag, kept from then
 * on and compressed once per coding. A server nobody reads the docs of never holds them.
 */
export const OpenApiRoutesLive = Layer.unwrapEffect(
  Effect.gen(function*() {
    const config = yield* SvcConfig
    if (!config.openapi.enabled) return Layer.empty
    const spec = yield* Effect.cached(specBody(config))
    const docs = yield* Effect.cached(docsBodies(config, spec))
    return Layer.mergeAll(
      lazyRoute(config.openapi.specPath, spec, (body) => body, NO_CACHE),
      lazyRoute("/docs", docs, (all) => all.page, NO_CACHE),
      lazyRoute("/docs/scalar.js", docs, (all) => all.script, IMMUTABLE)
    )
  })
)
