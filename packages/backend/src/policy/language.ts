/**
 * Accept-Language negotiation against the published languages. Ranges are tried by quality
 * (ties keep header order); a range matches a language exactly (case-insensitive), else by its
 * primary subtag (`de-AT` → `de`). `*` and no match at all give the default language.
 */
export const makeLanguageNegotiator = (languages: ReadonlyArray<string>, defaultLanguage: string) => {
  const byLower = new Map(languages.map((l) => [l.toLowerCase(), l]))
  const cache = new Map<string, string>()

  const negotiate = (header: string): string => {
    const ranges: Array<{ tag: string; q: number; at: number }> = []
    header.split(",").forEach((part, at) => {
      const [rawTag = "", ...params] = part.trim().split(";")
      const tag = rawTag.trim().toLowerCase()
      if (tag === "" || !/^(\*|[a-z]{1,8}(-[a-z0-9]{1,8})*)$/.test(tag)) return
      let q = 1
      for (const param of params) {
        const m = /^\s*q\s*=\s*([01](\.\d{0,3})?)\s*$/.exec(param)
        if (m !== null) q = Number(m[1])
      }
      if (q > 0) ranges.push({ tag, q, at })
    })
    ranges.sort((a, b) => b.q - a.q || a.at - b.at)
    for (const { tag } of ranges) {
      if (tag === "*") return defaultLanguage
      const exact = byLower.get(tag)
      if (exact !== undefined) return exact
      const primary = byLower.get(tag.split("-")[0]!)
      if (primary !== undefined) return primary
    }
    return defaultLanguage
  }

  /** Header values repeat across visitors, so answers are remembered (bounded). */
  return (header: string | undefined): string => {
    if (header === undefined || header === "") return defaultLanguage
    let language = cache.get(header)
    if (language === undefined) {
      language = negotiate(header.slice(0, 256))
      if (cache.size >= 1000) cache.clear()
      cache.set(header, language)
    }
    return language
  }
}
