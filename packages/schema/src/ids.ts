import { Schema } from "effect"

/**
 * Subject ids are chosen by the browser; they act as a private capability, so they must be hard to guess.
 *
 * @example
 * ```ts
 * import { SubjectId } from "@svc/schema"
 * import { randomBytes } from "node:crypto"
 *
 * // A server that records consent for a new visitor names the subject itself: 32 random characters.
 * const subjectId = SubjectId.make(`sub_${randomBytes(24).toString("base64url")}`)
 * ```
 */
export const SubjectId = Schema.String.pipe(
  Schema.pattern(/^sub_[A-Za-z0-9_-]{8,128}$/),
  Schema.brand("SubjectId")
).annotations({ identifier: "SubjectId", description: "sub_ followed by 8 to 128 characters of [A-Za-z0-9_-]" })
export type SubjectId = typeof SubjectId.Type

/**
 * The id of one stored consent act, `cns_…`, as `POST /subjects` answers it and `GET /log/proof/:consentId` takes it.
 *
 * @example
 * ```ts
 * import { ConsentId } from "@svc/schema"
 *
 * // Only a real consent id reaches the proof route.
 * const proofUrl = (id: ConsentId) => `https://consent.example.com/log/proof/${encodeURIComponent(id)}`
 * proofUrl(ConsentId.make("cns_Vq3mZ8xKp2LtR9wA4bYc1Q"))
 * ```
 */
export const ConsentId = Schema.String.pipe(Schema.pattern(/^cns_[A-Za-z0-9_-]+$/), Schema.brand("ConsentId"))
  .annotations({ identifier: "ConsentId" })
export type ConsentId = typeof ConsentId.Type

/**
 * The id of one published legal document release, `pol_…`.
 *
 * @example
 * ```ts
 * import { LegalReleaseId } from "@svc/schema"
 * import { Option, Schema } from "effect"
 *
 * // The CMS stores the release id svc answered on publish; anything else in the field is ignored.
 * const releaseIdOf = (cmsField: unknown) => Option.getOrNull(Schema.decodeUnknownOption(LegalReleaseId)(cmsField))
 * releaseIdOf("pol_bX7kQ2mZp9LtV4wA") // "pol_bX7kQ2mZp9LtV4wA"
 * ```
 */
export const LegalReleaseId = Schema.String.pipe(Schema.pattern(/^pol_[A-Za-z0-9_-]+$/), Schema.brand("LegalReleaseId"))
  .annotations({ identifier: "LegalReleaseId" })
export type LegalReleaseId = typeof LegalReleaseId.Type

/** C0 control characters (U+0000 to U+001F). Postgres refuses U+0000 in text; none belongs in a request string. */
const controlCharacter = /[\u0000-\u001f]/

/**
 * Refuses C0 control characters (NUL, tab, newline, ...) with a clear message.
 *
 * @example
 * ```ts
 * import { noControlCharacters } from "@svc/schema"
 * import { Either, Schema } from "effect"
 *
 * // The app's own field, refused the way svc refuses its strings (Postgres cannot store U+0000).
 * const DisplayName = noControlCharacters(Schema.String.pipe(Schema.maxLength(80)))
 * Either.isLeft(Schema.decodeUnknownEither(DisplayName)("Ada\u0000")) // true: must not contain control characters
 * ```
 */
export const noControlCharacters = <S extends Schema.Schema<string, string, never>>(self: S) =>
  self.pipe(
    Schema.filter((s: string) => !controlCharacter.test(s), {
      message: () => "must not contain control characters (U+0000 to U+001F)"
    })
  )

/**
 * Refuses leading or trailing white space (MySQL's PAD SPACE collations ignore trailing blanks).
 *
 * @example
 * ```ts
 * import { noSurroundingWhiteSpace } from "@svc/schema"
 * import { Schema } from "effect"
 *
 * // A key compared in MySQL, where "acme " would equal "acme": refuse the padding instead.
 * const TeamKey = noSurroundingWhiteSpace(Schema.String.pipe(Schema.minLength(1)))
 * Schema.is(TeamKey)("acme ") // false
 * ```
 */
export const noSurroundingWhiteSpace = <S extends Schema.Schema<string, string, never>>(self: S) =>
  self.pipe(Schema.filter((s: string) => s.trim() === s, { message: () => "must not start or end with white space" }))

/**
 * Any request string: free text, but never a control character.
 *
 * @example
 * ```ts
 * import { SafeString } from "@svc/schema"
 * import { Schema } from "effect"
 *
 * // The search box of the app's consent admin page: any text, but no NUL for the database to refuse.
 * const SearchParams = Schema.Struct({ q: SafeString })
 * const url = new URL("https://admin.example.com/consents?q=user-42")
 * const { q } = Schema.decodeUnknownSync(SearchParams)(Object.fromEntries(url.searchParams))
 * ```
 */
export const SafeString = noControlCharacters(Schema.String)

/**
 * A request string of at most `maxLength` characters, without control characters.
 *
 * @example
 * ```ts
 * import { SafeText } from "@svc/schema"
 * import { Schema } from "effect"
 *
 * // The optional note a user may leave when withdrawing consent in the app.
 * const WithdrawalForm = Schema.Struct({ category: Schema.Literal("marketing"), note: Schema.optional(SafeText(500)) })
 * Schema.decodeUnknownSync(WithdrawalForm)({ category: "marketing", note: "Too many emails." })
 * ```
 */
export const SafeText = (maxLength: number) => noControlCharacters(Schema.String.pipe(Schema.maxLength(maxLength)))

/**
 * A non-empty string without control characters or surrounding white space, bounded so it fits an
 * indexed column: every identifier-like request string that is stored or compared.
 *
 * @example
 * ```ts
 * import { Token } from "@svc/schema"
 * import { Schema } from "effect"
 *
 * // The app's own campaign id, kept beside svc's journey ids in an indexed column.
 * const CampaignId = Token(64).pipe(Schema.brand("CampaignId"))
 * const campaign = CampaignId.make("spring-sale-2026")
 * ```
 */
export const Token = (maxLength: number) =>
  noSurroundingWhiteSpace(noControlCharacters(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(maxLength))))

/**
 * The app's own user id a subject is linked to (`externalId`, `externalSubjectId`): a `Token` of at
 * most 255 characters.
 *
 * @example
 * ```ts
 * import { ExternalId } from "@svc/schema"
 * import { Either, Schema } from "effect"
 *
 * // Checked in the app before linking, so a padded or empty id never becomes a 400 from svc.
 * const toExternalId = Schema.decodeUnknownEither(ExternalId)
 * Either.isRight(toExternalId("user-42")) // true
 * Either.isRight(toExternalId(" user-42")) // false: must not start or end with white space
 * ```
 */
export const ExternalId = Token(255).annotations({ identifier: "ExternalId" })
/**
 * The site a consent was given on (`domain` of a save): a `Token` of at most 255 characters.
 *
 * @example
 * ```ts
 * import { Domain } from "@svc/schema"
 * import { Schema } from "effect"
 *
 * // A custom banner records the host it runs on.
 * const domain = Schema.decodeUnknownSync(Domain)(window.location.hostname)
 * ```
 */
export const Domain = Token(255).annotations({ identifier: "Domain" })
