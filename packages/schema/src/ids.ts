import { Schema } from "effect"

/** Subject ids are chosen by the browser; they act as a private capability, so they must be hard to guess. */
export const SubjectId = Schema.String.pipe(
  Schema.pattern(/^sub_[A-Za-z0-9_-]{8,128}$/),
  Schema.brand("SubjectId")
).annotations({ identifier: "SubjectId", description: "sub_ followed by 8 to 128 characters of [A-Za-z0-9_-]" })
export type SubjectId = typeof SubjectId.Type

export const ConsentId = Schema.String.pipe(Schema.pattern(/^cns_[A-Za-z0-9_-]+$/), Schema.brand("ConsentId"))
  .annotations({ identifier: "ConsentId" })
export type ConsentId = typeof ConsentId.Type

export const LegalReleaseId = Schema.String.pipe(Schema.pattern(/^pol_[A-Za-z0-9_-]+$/), Schema.brand("LegalReleaseId"))
  .annotations({ identifier: "LegalReleaseId" })
export type LegalReleaseId = typeof LegalReleaseId.Type

/** C0 control characters (U+0000 to U+001F). Postgres refuses U+0000 in text; none belongs in a request string. */
const controlCharacter = /[\u0000-\u001f]/

/** Refuses C0 control characters (NUL, tab, newline, ...) with a clear message. */
export const noControlCharacters = <S extends Schema.Schema<string, string, never>>(self: S) =>
  self.pipe(
    Schema.filter((s: string) => !controlCharacter.test(s), {
      message: () => "must not contain control characters (U+0000 to U+001F)"
    })
  )

/** Refuses leading or trailing white space (MySQL's PAD SPACE collations ignore trailing blanks). */
export const noSurroundingWhiteSpace = <S extends Schema.Schema<string, string, never>>(self: S) =>
  self.pipe(Schema.filter((s: string) => s.trim() === s, { message: () => "must not start or end with white space" }))

/** Any request string: free text, but never a control character. */
export const SafeString = noControlCharacters(Schema.String)

/** A request string of at most `maxLength` characters, without control characters. */
export const SafeText = (maxLength: number) => noControlCharacters(Schema.String.pipe(Schema.maxLength(maxLength)))

/**
 * A non-empty string without control characters or surrounding white space, bounded so it fits an
 * indexed column: every identifier-like request string that is stored or compared.
 */
export const Token = (maxLength: number) =>
  noSurroundingWhiteSpace(noControlCharacters(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(maxLength))))

export const ExternalId = Token(255).annotations({ identifier: "ExternalId" })
export const Domain = Token(255).annotations({ identifier: "Domain" })
