/**
 * The route template of a path, for logs: subject ids are capabilities and must never be
 * written to a log line, so the path is reduced to its pattern.
 */
export const routeTemplate = (path: string): string => {
  const segments = path.split("/")
  if (segments[1] === "subjects" && segments.length === 3) return "/subjects/:id"
  if (segments[1] === "experiments" && segments.length === 4) return "/experiments/:id/summary"
  if (segments[1] === "legal-documents" && segments.length === 4) return "/legal-documents/:type/current"
  return path
}

/** Splits `url` (path and query) into its path. */
export const pathOf = (url: string): string => {
  const q = url.indexOf("?")
  return q === -1 ? url : url.slice(0, q)
}
