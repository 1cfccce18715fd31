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

/**
 * The CSV rows of one record. The columns before and after the category's three are the same on
 * each of its rows, so they are written once per record (a field list per row cost ~20 kB per
 * record of a 1M-record export).
 */
export const csvRows = (record: StandardConsentRecord): string => {
  const legal = record.notice.legalDocument
  const signals = record.signals
  const externalIds = record.principal.externalIds.map((l) =>
    `${l.identityProvider}:${l.externalId}${l.verified ? "" : " (unverified)"}`
  ).join(";")
  const events = record.events.map((e) => `${e.type}@${e.time.toISOString()}`).join(";")
  const before = `${csvField(record.recordId)},${csvField(record.schemaVersion)},${
    csvField(record.principal.subjectId)
  },${csvField(externalIds)},${csvField(record.policyType)},${csvField(record.controller.domain)},${
    csvField(record.givenAt.toISOString())
  },${csvField(record.recordedAt.toISOString())},${csvField(events)},`
  const after = `,${csvField(record.notice.policyRuleId)},${csvField(record.notice.policyFingerprint)},${
    csvField(record.jurisdiction.model)
  },${csvField(legal?.id ?? null)},${csvField(legal?.version ?? null)},${csvField(legal?.hash ?? null)},${
    csvField(record.collection.method)
  },${csvField(record.collection.action)},${csvField(record.collection.journeyId)},${
    csvField(record.collection.snapshotSource)
  },${csvField(record.proof.ipAddress)},${csvField(record.proof.userAgent)},${
    csvField(signals?.gpc === undefined ? null : true)
  },${csvField(signals?.gpc?.denied.join(";") ?? null)},${csvField(signals?.gpc?.overridden.join(";") ?? null)},${
    csvField(signals?.gppString ?? null)
  },${csvField(signals?.gppSectionIds?.join(";") ?? null)},${csvField(signals?.tcString ?? null)}\r\n`
  if (record.purposes.length === 0) return `${before},,${after}`
  let rows = ""
  for (const purpose of record.purposes) {
    rows += `${before}${csvField(purpose.category)},${csvField(purpose.granted)},${
      csvField(purpose.confirmedAt.toISOString())
    }${after}`
  }
  return rows
}
