import type { StandardConsentRecord } from "@svc/schema"

/**
 * Columns of the CSV export: one row per category receipt (a record without receipts gets one row).
 * The last six carry the NDJSON export's `signals`, each empty when the act did not carry it: `gpc` is
 * `true` when the signal applied, GPC's denied and overridden categories and the GPP section ids are
 * `;`-joined lists, the GPP and TC strings are as sent.
 */
export const CSV_COLUMNS = [
  "recordId",
  "schemaVersion",
  "subjectId",
  "externalIds",
  "policyType",
  "domain",
  "givenAt",
  "recordedAt",
  "events",
  "category",
  "granted",
  "confirmedAt",
  "policyRuleId",
  "policyFingerprint",
  "model",
  "legalDocumentId",
  "legalDocumentVersion",
  "legalDocumentHash",
  "method",
  "action",
  "journeyId",
  "snapshotSource",
  "ipAddress",
  "userAgent",
  "gpc",
  "gpcDenied",
  "gpcOverridden",
  "gppString",
  "gppSectionIds",
  "tcString"
] as const

/**
 * One CSV field (RFC 4180): quoted when it holds a comma, quote or line break. A text starting
 * with `=`, `+`, `-`, `@` or a tab would run as a formula in a spreadsheet; it gets a leading `'`.
 */
export const csvField = (value: string | number | boolean | null): string => {
  if (value === null) return ""
  let text = String(value)
  if (typeof value === "string" && /^[=+\-@\t\r]/.test(text)) text = `'${text}`
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text
}

const line = (fields: ReadonlyArray<string | number | boolean | null>) => `${fields.map(csvField).join(",")}\r\n`

export const csvHeader = line(CSV_COLUMNS)

/** The CSV rows of one record. */
export const csvRows = (record: StandardConsentRecord): string => {
  const legal = record.notice.legalDocument
  const signals = record.signals
  const common = (purpose: StandardConsentRecord["purposes"][number] | undefined) =>
    line([
      record.recordId,
      record.schemaVersion,
      record.principal.subjectId,
      record.principal.externalIds.map((l) =>
        `${l.identityProvider}:${l.externalId}${l.verified ? "" : " (unverified)"}`
      ).join(";"),
      record.policyType,
      record.controller.domain,
      record.givenAt.toISOString(),
      record.recordedAt.toISOString(),
      record.events.map((e) => `${e.type}@${e.time.toISOString()}`).join(";"),
      purpose?.category ?? null,
      purpose === undefined ? null : purpose.granted,
      purpose === undefined ? null : purpose.confirmedAt.toISOString(),
      record.notice.policyRuleId,
      record.notice.policyFingerprint,
      record.jurisdiction.model,
      legal?.id ?? null,
      legal?.version ?? null,
      legal?.hash ?? null,
      record.collection.method,
      record.collection.action,
      record.collection.journeyId,
      record.collection.snapshotSource,
      record.proof.ipAddress,
      record.proof.userAgent,
      signals?.gpc === undefined ? null : true,
      signals?.gpc?.denied.join(";") ?? null,
      signals?.gpc?.overridden.join(";") ?? null,
      signals?.gppString ?? null,
      signals?.gppSectionIds?.join(";") ?? null,
      signals?.tcString ?? null
    ])
  return record.purposes.length === 0 ? common(undefined) : record.purposes.map(common).join("")
}
