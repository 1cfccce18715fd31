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

/** `GET /legal-documents/:type/current`: the type's current release. */
export const CurrentLegalDocumentResponse = Schema.Struct({ policy: LegalDocumentRelease }).annotations({
  identifier: "CurrentLegalDocumentResponse"
})

/** `GET /legal-documents/:type`: every release of the type, the latest publish (the current one) first. */
export const LegalDocumentReleaseList = Schema.Struct({ policies: Schema.Array(LegalDocumentRelease) }).annotations({
  identifier: "LegalDocumentReleaseList"
})
export type LegalDocumentReleaseList = typeof LegalDocumentReleaseList.Type
