import { Effect } from "effect"
import { SvcConfig } from "../config/resolved.js"
import { makeLanguageNegotiator } from "./language.js"
import { PolicyManifest } from "./manifest.js"

export interface ManifestDocument {
  readonly etag: string
  readonly body: string
}

/** `W/"x"` and `"x"` compare equal: If-None-Match uses the weak comparison. */
const opaque = (tag: string) => tag.trim().replace(/^W\//, "")

/**
 * What `GET /manifest` answers, built from the `PolicyManifest`: its bodies encoded once (the whole
 * manifest, and one slice per published language (`?language=`) holding only that language's
 * table), each with its own ETag, and the cache headers.
 */
export class ManifestResponses extends Effect.Service<ManifestResponses>()("@svc/backend/ManifestResponses", {
  effect: Effect.gen(function*() {
    const config = yield* SvcConfig
    const policy = yield* PolicyManifest
    const { manifest } = policy
    const negotiate = makeLanguageNegotiator(policy.languages, policy.defaultLanguage)
    const whole: ManifestDocument = { etag: `"${manifest.revision}"`, body: JSON.stringify(manifest) }
    const slices = new Map<string, ManifestDocument>(policy.languages.map((language) => [
      language,
      {
        etag: `"${manifest.revision}.${language}"`,
        body: JSON.stringify({ ...manifest, translations: { [language]: policy.translations(language) } })
      }
    ]))
    const { sMaxAge, staleWhileRevalidate } = config.manifestCache
    const cacheControl = `public, max-age=0, s-maxage=${sMaxAge}, stale-while-revalidate=${staleWhileRevalidate}`

    return {
      cacheControl,
      /** The document for `?language=`: that language, or the closest published one. */
      document: (language: string | undefined): ManifestDocument =>
        language === undefined ? whole : slices.get(negotiate(language))!,
      /** Whether an If-None-Match header names the document's current ETag (or `*`). */
      notModified: (document: ManifestDocument, ifNoneMatch: string | undefined): boolean =>
        ifNoneMatch !== undefined &&
        ifNoneMatch.split(",").some((tag) => tag.trim() === "*" || opaque(tag) === document.etag)
    } as const
  }),
  dependencies: [PolicyManifest.Default]
}) {}
