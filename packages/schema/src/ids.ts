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

/** A non-empty string without surrounding white space, bounded so it fits an indexed column. */
export const Token = (maxLength: number) =>
  Schema.String.pipe(
    Schema.minLength(1),
    Schema.maxLength(maxLength),
    Schema.filter((s) => s.trim() === s, { message: () => "must not start or end with white space" })
  )

export const ExternalId = Token(255).annotations({ identifier: "ExternalId" })
export const Domain = Token(255).annotations({ identifier: "Domain" })
