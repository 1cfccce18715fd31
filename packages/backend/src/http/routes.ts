import { HttpRouter } from "@effect/platform"
import { Effect, Option } from "effect"

/**
 * The route template of a path, for logs: subject ids are capabilities and must never be
 * written to a log line, so the path is reduced to its pattern.
 */
export const routeTemplate = (path: string): string => {
  const segments = path.split("/")
  if (segments[1] === "subjects" && segments.length === 3) return "/subjects/:id"
  if (segments[1] === "experiments" && segments.length === 4) return "/experiments/:id/summary"
  if (segments[1] === "legal-documents" && segments.length === 4) return "/legal-documents/:type/current"
  return segments.map((segment) => (looksSecret(segment) ? ":param" : segment)).join("/")
}

/** A path segment that may be an id, a token or a key: never logged as is. */
const looksSecret = (segment: string): boolean =>
  /^(sub|cns|pol)_/.test(segment) || segment.length > 32 || (/\d/.test(segment) && segment.length >= 12) ||
  /[^A-Za-z0-9._~-]/.test(segment)

/**
 * The route a request matched, for logs: the router's template without the mount prefix (never
 * the concrete path), or the reduced path for wildcard routes such as preflights.
 */
export const loggedRoute = (basePath: string, path: string) =>
  Effect.map(Effect.serviceOption(HttpRouter.RouteContext), (context) => {
    const template = Option.isSome(context) ? String(context.value.route.path) : undefined
    if (template === undefined || template.includes("*")) return routeTemplate(path)
    return basePath !== "" && template.startsWith(basePath) ? template.slice(basePath.length) || "/" : template
  })

/** Splits `url` (path and query) into its path. */
export const pathOf = (url: string): string => {
  const q = url.indexOf("?")
  return q === -1 ? url : url.slice(0, q)
}
