import { SaveConsentRequest } from "@svc/schema"
import { Either } from "effect"
import type { SvcApiClient } from "../effect-client.js"
import type { SvcIssue } from "../errors.js"
import { isRecord } from "../checks.js"
import { checkJsonSafe, dateOrMillis, defined, objectIssue, validatePart } from "../validate.js"

type Payload = Parameters<SvcApiClient["subjects"]["create"]>[0]["payload"]

/**
 * A time in a save: a `Date` or epoch milliseconds.
 *
 * @example
 * ```ts
 * import type { TimeValue } from "@svc/client"
 *
 * // Times from a mobile app arrive as epoch milliseconds and go to svc unchanged.
 * const clickedAt: TimeValue = 1767085200000
 * const confirmedAt: TimeValue = new Date("2025-12-30T09:00:00Z")
 * ```
 */
export type TimeValue = Date | number

type Receipts = NonNullable<Payload["receipts"]>

/**
 * `subjects.create` input: the contract's `POST /subjects` body, with plain strings for ids and
 * `Date` or epoch milliseconds for times. `cookie_banner` requires `preferences`; legal-document
 * types accept `policyHash`, `policyId` or `documentSnapshotToken`.
 *
 * @example
 * ```ts
 * import type { SaveConsentInput, SvcClient } from "@svc/client"
 *
 * // A server-side sign-up form records acceptance of the terms it showed, by the text's hash.
 * const termsAccepted = (subjectId: string, userId: string, termsHash: string): SaveConsentInput => ({
 *   type: "terms_and_conditions",
 *   domain: "shop.example.com",
 *   subjectId,
 *   givenAt: new Date(),
 *   policyHash: termsHash,
 *   externalSubjectId: userId
 * })
 * const record = (svc: SvcClient, input: SaveConsentInput) => svc.subjects.create(input)
 * ```
 */
export type SaveConsentInput =
  & Omit<Payload, "subjectId" | "givenAt" | "receipts" | "vendorChoice">
  & {
    /** `sub_` followed by 8 to 128 characters of `[A-Za-z0-9_-]`, chosen by the browser. */
    readonly subjectId: string
    /** When the visitor acted (click time); stored as sent. */
    readonly givenAt: TimeValue
    readonly receipts?:
      | { readonly [K in keyof Receipts]?: { readonly value: boolean; readonly confirmedAt: TimeValue } }
      | undefined
    readonly vendorChoice?: {
      readonly grants: Readonly<Record<string, boolean>>
      readonly confirmedAt: TimeValue
    } | undefined
  }

/** Checks a save and converts its times to `Date`, or returns the problems. */
export const prepareCreate = (input: SaveConsentInput): Payload | Array<SvcIssue> => {
  const shape = objectIssue(input, [], "type, domain, subjectId and givenAt")
  if (shape.length > 0) return shape
  const issues = checkJsonSafe(input)
  if (issues.length > 0) return issues
  const givenAt = dateOrMillis(input.givenAt, ["givenAt"], issues)
  let receipts: Record<string, unknown> | undefined
  if (isRecord(input.receipts)) {
    receipts = {}
    for (const [category, receipt] of Object.entries(input.receipts)) {
      if (receipt === undefined) continue
      receipts[category] = isRecord(receipt)
        ? {
          ...receipt,
          confirmedAt: dateOrMillis(receipt["confirmedAt"], ["receipts", category, "confirmedAt"], issues)
        }
        : receipt
    }
  }
  const vendorChoice = isRecord(input.vendorChoice)
    ? {
      ...input.vendorChoice,
      confirmedAt: dateOrMillis(input.vendorChoice["confirmedAt"], ["vendorChoice", "confirmedAt"], issues)
    }
    : input.vendorChoice
  const payload = defined({ ...input, givenAt, receipts: receipts ?? input.receipts, vendorChoice })
  // Times already reported above (and the objects holding them) are left out of the schema check.
  const reported = issues.map((issue) => issue.path.join("."))
  const covers = (path: string) => reported.some((done) => done === path || done.startsWith(`${path}.`))
  // The `POST /subjects` payload schema of the contract, imported with its type (`Payload`).
  const checked = validatePart(SaveConsentRequest, payload)
  if (Either.isRight(checked)) return issues.length > 0 ? issues : checked.right
  issues.push(...checked.left.filter((issue) => !covers(issue.path.join("."))))
  return issues
}
