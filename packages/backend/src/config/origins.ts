/** `https://a.example:8443/` → `a.example:8443`; keeps `*` and `*.domain` as written; `undefined` when not an origin. */
export const normalizeOrigin = (entry: string): string | undefined => {
  const trimmed = entry.trim().toLowerCase()
  if (trimmed === "*") return "*"
  const withoutScheme = trimmed.replace(/^[a-z][a-z0-9+.-]*:\/\//, "").replace(/\/+$/, "")
  return /^(\*\.)?[a-z0-9.-]+(:\d{1,5})?$|^\[[0-9a-f:]+\](:\d{1,5})?$/.test(withoutScheme) ? withoutScheme : undefined
}
