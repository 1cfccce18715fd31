import { Schema } from "effect"
import { LegalDocumentType } from "./consent.js"
import { LegalReleaseId, Token } from "./ids.js"
import { Timestamp, TimeInput } from "./time.js"

/**
 * `PUT /legal-documents/:type/current` body.
 *
 * @example
 * ```ts
 * import { PublishLegalDocumentRequest } from "@svc/schema"
 * import { Schema } from "effect"
 * import { createHash } from "node:crypto"
 * import { readFile } from "node:fs/promises"
 *
 * // CI publishes the privacy policy the site now links to: its version, the SHA-256 of its text, its start.
 * const text = await readFile("legal/privacy-policy.md")
 * const hash = createHash("sha256").update(text).digest("hex")
 * const body = Schema.encodeSync(PublishLegalDocumentRequest)({
 *   version: "2026-02",
 *   hash,
 *   effectiveDate: new Date("2026-02-01")
 * })
 * await fetch("https://consent.example.com/legal-documents/privacy_policy/current", {
 *   method: "PUT",
 *   headers: { authorization: `Bearer ${process.env.SVC_API_KEY}`, "content-type": "application/json" },
 *   body: JSON.stringify(body)
 * })
 * ```
 */
export const PublishLegalDocumentRequest = Schema.Struct({
  version: Token(64),
  hash: Token(255),
  effectiveDate: TimeInput
}).annotations({ identifier: "PublishLegalDocumentRequest" })
export type PublishLegalDocumentRequest = typeof PublishLegalDocumentRequest.Type

/**
 * One published release of a legal document: its version, the hash of its text, when it takes
 * effect and when it was published.
 *
 * @example
 * ```ts
 * import type { LegalDocumentRelease } from "@svc/schema"
 *
 * // The footer names the version a visitor is asked to accept.
 * const footerLabel = (release: LegalDocumentRelease) =>
 *   `Privacy policy, version ${release.version}, in effect since ${release.effectiveDate.toLocaleDateString("en-GB")}`
 * ```
 */
export const LegalDocumentRelease = Schema.Struct({
  id: LegalReleaseId,
  type: LegalDocumentType,
  version: Schema.String,
  hash: Schema.String,
  effectiveDate: Timestamp,
  createdAt: Timestamp
}).annotations({ identifier: "LegalDocumentRelease" })
export type LegalDocumentRelease = typeof LegalDocumentRelease.Type

/**
 * `PUT /legal-documents/:type/current` answer: the release now current (the stored one when the
 * same hash, version and date were published before).
 *
 * @example
 * ```ts
 * import { HttpClient, HttpClientRequest, HttpClientResponse } from "@effect/platform"
 * import { PublishLegalDocumentResponse } from "@svc/schema"
 * import { Effect } from "effect"
 *
 * const publishTerms = (version: string, hash: string) =>
 *   HttpClientRequest.put("https://consent.example.com/legal-documents/terms_and_conditions/current").pipe(
 *     HttpClientRequest.bearerToken(process.env.SVC_API_KEY ?? ""),
 *     HttpClientRequest.bodyUnsafeJson({ version, hash, effectiveDate: "2026-03-01" }),
 *     HttpClient.execute,
 *     Effect.flatMap(HttpClientResponse.schemaBodyJson(PublishLegalDocumentResponse)),
 *     Effect.map(({ policy }) => policy.id)
 *   )
 * ```
 */
export const PublishLegalDocumentResponse = Schema.Struct({ policy: LegalDocumentRelease }).annotations({
  identifier: "PublishLegalDocumentResponse"
})

/**
 * `GET /legal-documents/:type/current`: the type's current release.
 *
 * @example
 * ```ts
 * import { CurrentLegalDocumentResponse } from "@svc/schema"
 * import { Schema } from "effect"
 *
 * // The sign-up form asks for the release that is current now (a public route: no key).
 * const response = await fetch("https://consent.example.com/legal-documents/privacy_policy/current")
 * const { policy } = Schema.decodeUnknownSync(CurrentLegalDocumentResponse)(await response.json())
 * const consentLabel = `I accept the privacy policy (version ${policy.version})`
 * ```
 */
export const CurrentLegalDocumentResponse = Schema.Struct({ policy: LegalDocumentRelease }).annotations({
  identifier: "CurrentLegalDocumentResponse"
})

/**
 * `GET /legal-documents/:type`: every release of the type, the latest publish (the current one) first.
 *
 * @example
 * ```ts
 * import type { LegalDocumentReleaseList } from "@svc/schema"
 *
 * // The "previous versions" list under the terms page.
 * const history = ({ policies }: LegalDocumentReleaseList) =>
 *   policies.map((release, index) => {
 *     const effective = release.effectiveDate.toISOString().slice(0, 10)
 *     return `${release.version}${index === 0 ? " (current)" : ""}, effective ${effective}`
 *   })
 * ```
 */
export const LegalDocumentReleaseList = Schema.Struct({ policies: Schema.Array(LegalDocumentRelease) }).annotations({
  identifier: "LegalDocumentReleaseList"
})
export type LegalDocumentReleaseList = typeof LegalDocumentReleaseList.Type
