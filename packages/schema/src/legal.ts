import { Schema } from "effect"
import { LegalDocumentType } from "./consent.js"
import { LegalReleaseId, Token } from "./ids.js"
import { Timestamp, TimeInput } from "./time.js"

/** `PUT /legal-documents/:type/current` body. */
export const PublishLegalDocumentRequest = Schema.Struct({
  version: Token(64),
  hash: Token(255),
  effectiveDate: TimeInput
}).annotations({ identifier: "PublishLegalDocumentRequest" })
export type PublishLegalDocumentRequest = typeof PublishLegalDocumentRequest.Type

export const LegalDocumentRelease = Schema.Struct({
  id: LegalReleaseId,
  type: LegalDocumentType,
  version: Schema.String,
  hash: Schema.String,
  effectiveDate: Timestamp,
  createdAt: Timestamp
}).annotations({ identifier: "LegalDocumentRelease" })
export type LegalDocumentRelease = typeof LegalDocumentRelease.Type

export const PublishLegalDocumentResponse = Schema.Struct({ policy: LegalDocumentRelease }).annotations({
  identifier: "PublishLegalDocumentResponse"
})
