import {
  HttpApi,
  HttpMethod,
  HttpRouter,
  type HttpServerError,
  type HttpServerRequest,
  HttpServerResponse
} from "@effect/platform"
import { SvcApi } from "@svc/api"
import { Effect, Option } from "effect"
import { errorResponse } from "./error-response.js"

/**
 * Deeper than any svc body (a save is four levels deep) and far below the depth at which
 * formatting a decode error overflows the stack (`Inspectable`, some 5,000 levels).
 */
export const MAX_JSON_DEPTH = 32

/**
 * `METHOD /path` of every contract endpoint whose payload the framework reads from the body.
 * Derived from `SvcApi`, so a new endpoint with a payload is covered without listing it here.
 */
const bodyRoutes: ReadonlySet<string> = (() => {
  const routes = new Set<string>()
  HttpApi.reflect(SvcApi, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => {
      if (Option.isSome(endpoint.payloadSchema) && HttpMethod.hasBody(endpoint.method)) {
        routes.add(`${endpoint.method} ${endpoint.path}`)
      }
    }
  })
  return routes
})()

/** The media type of a Content-Type header, lower case and without parameters. */
const mediaTypeOf = (header: string | undefined): string | undefined => {
  if (header === undefined) return undefined
  const semicolon = header.indexOf(";")
  return (semicolon === -1 ? header : header.slice(0, semicolon)).trim().toLowerCase()
}

/**
 * Whether arrays and objects in `text` nest deeper than `max`, counted on the raw text (brackets
 * inside strings skipped) so nothing deep is ever parsed, decoded or formatted.
 */
export const nestsDeeperThan = (text: string, max: number): boolean => {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 92 /* \ */) i++
      else if (c === 34 /* " */) inString = false
    } else if (c === 34) {
      inString = true
    } else if (c === 91 /* [ */ || c === 123 /* { */) {
      if (++depth > max) return true
    } else if (c === 93 /* ] */ || c === 125 /* } */) {
      depth--
    }
  }
  return false
}

const unsupported = () =>
  errorResponse("UNSUPPORTED_MEDIA_TYPE", "This route accepts a JSON body only: send Content-Type: application/json")
const missing = () => errorResponse("INVALID_REQUEST", "This route needs a JSON body (Content-Type: application/json)")
const tooDeep = () =>
  errorResponse("INVALID_REQUEST", `The JSON body is nested more than ${MAX_JSON_DEPTH} levels deep`)

/**
 * The one gate for request bodies, run by the edge before the route's handler: on a route whose
 * contract has a payload, only `application/json` (any parameters) is read, a body must be
 * there, and it may nest at most {@link MAX_JSON_DEPTH} levels. Forms and multipart bodies (which
 * a foreign page can send without a preflight, and which the framework would otherwise decode
 * into the payload) never reach a handler. Answers the refusal, or `undefined` to go on.
 *
 * The body is read through `request.text`, which the request caches: the framework's own
 * `request.json` then parses the same text, so the body is read once.
 */
export const refuseBody = (
  request: HttpServerRequest.HttpServerRequest
): Effect.Effect<HttpServerResponse.HttpServerResponse | undefined, HttpServerError.RequestError> =>
  Effect.flatMap(Effect.serviceOption(HttpRouter.RouteContext), (context) => {
    if (Option.isNone(context)) return Effect.succeed(undefined)
    // The route's template carries every mount prefix (basePath, and a host app's own), recorded on the route.
    const { path: template, prefix } = context.value.route
    const path = Option.isSome(prefix) ? template.slice(prefix.value.length) || "/" : template
    if (!bodyRoutes.has(`${request.method} ${path}`)) return Effect.succeed(undefined)
    const mediaType = mediaTypeOf(request.headers["content-type"])
    if (mediaType !== undefined && mediaType !== "application/json") return Effect.succeed(unsupported())
    return Effect.map(request.text, (text) => {
      if (text.trim() === "") return missing()
      if (mediaType === undefined) return unsupported()
      return nestsDeeperThan(text, MAX_JSON_DEPTH) ? tooDeep() : undefined
    })
  })
