import { type ConsentCheckMethod, consentMethods } from "./methods/consents.js"
import { consentExportMethod, type ConsentExportMethod } from "./methods/consents-export.js"
import { eventMethods, type EventMethods } from "./methods/events.js"
import { experimentMethods, type ExperimentMethods } from "./methods/experiments.js"
import { legalDocumentMethods, type LegalDocumentMethods } from "./methods/legal-documents.js"
import { serviceMethods, type ServiceMethods } from "./methods/service.js"
import { logMethods, type LogMethods, type PublicLogMethods } from "./methods/transparency-log.js"
import { subjectMethods, type PublicSubjectMethods, type SubjectMethods } from "./methods/subjects.js"
import { resolveOptions, type SvcClientOptions } from "./options.js"
import type { Runtime } from "./runner.js"

/**
 * A client created with an `apiKey`: every method.
 *
 * @example
 * ```ts
 * import type { SvcClient } from "@svc/client"
 *
 * // Account deletion: erase what svc holds about the user; the records stay as anonymous proof.
 * export async function onAccountDeleted(svc: SvcClient, userId: string) {
 *   const result = await svc.subjects.erase({ externalId: userId })
 *   if (!result.ok) throw result.error
 *   const { subjects, recordsKeptAsAnonymousProof } = result.data
 *   console.log(`erased ${subjects} subject(s); ${recordsKeptAsAnonymousProof} record(s) kept without personal data`)
 * }
 * ```
 */
export interface SvcClient extends ServiceMethods {
  readonly consents: { readonly check: ConsentCheckMethod; readonly export: ConsentExportMethod }
  readonly subjects: SubjectMethods
  readonly legalDocuments: LegalDocumentMethods
  readonly experiments: ExperimentMethods
  readonly events: EventMethods
  readonly log: LogMethods
}

/**
 * A client created without an `apiKey`: no key-only methods.
 *
 * @example
 * ```ts
 * import { createSvcClient, type SvcPublicClient } from "@svc/client"
 *
 * // A server-rendered page reads the visitor's choice without a key: the subject id is the capability.
 * const svc: SvcPublicClient = createSvcClient({ baseUrl: "https://consent.example.com" })
 * export const marketingAllowed = async (subjectId: string) => {
 *   const result = await svc.subjects.get(subjectId)
 *   return result.ok && result.data.subjectChoice?.categories.marketing?.value === true
 * }
 * ```
 */
export interface SvcPublicClient extends ServiceMethods {
  readonly subjects: PublicSubjectMethods
  readonly log: PublicLogMethods
}

/**
 * `SvcClient` when `apiKey` may be set (a `string`, or `string | undefined`); `SvcPublicClient` when it is absent.
 *
 * @example
 * ```ts
 * import type { SvcClientFor } from "@svc/client"
 *
 * // The client type a set of options gives, for code that stores clients made elsewhere.
 * type AdminClient = SvcClientFor<{ baseUrl: string; apiKey: string }> // SvcClient
 * type PageClient = SvcClientFor<{ baseUrl: string }> // SvcPublicClient
 *
 * const subjectsOfUser = (svc: AdminClient, userId: string) => svc.subjects.list({ externalId: userId })
 * const visitorChoice = (svc: PageClient, subjectId: string) => svc.subjects.get(subjectId)
 * ```
 */
export type SvcClientFor<O> = O extends { readonly apiKey: string } ? SvcClient
  : "apiKey" extends keyof O ? [NonNullable<O[keyof O & "apiKey"]>] extends [never] ? SvcPublicClient : SvcClient
  : SvcPublicClient

/**
 * Creates a client. Throws `SvcConfigurationError` (listing every problem) for invalid options;
 * nothing else ever throws, and no environment variable is read. Methods resolve to results.
 * At run time every method exists; a key-only method on a client without a key returns
 * `MISSING_API_KEY` and sends nothing.
 *
 * @example
 * ```ts
 * import { createSvcClient } from "@svc/client"
 *
 * // Server side, with the key: every method, key-only ones included.
 * const svc = createSvcClient({ baseUrl: "https://consent.example.com/consent", apiKey: process.env.SVC_API_KEY })
 *
 * const result = await svc.consents.check({ externalId: "user-42", types: ["privacy_policy"] })
 * if (result.ok) console.log(result.data.results.privacy_policy.hasConsent)
 * else console.warn(result.error.code, result.error.requestId)
 * ```
 */
export const createSvcClient = <const O extends SvcClientOptions>(options: O): SvcClientFor<O> => {
  const runtime: Runtime = { options: resolveOptions(options) }
  const client: SvcClient = {
    ...serviceMethods(runtime),
    consents: { ...consentMethods(runtime), export: consentExportMethod(runtime) },
    subjects: subjectMethods(runtime),
    legalDocuments: legalDocumentMethods(runtime),
    experiments: experimentMethods(runtime),
    events: eventMethods(runtime),
    log: logMethods(runtime)
  }
  // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- SvcClientFor<O> is SvcClient or SvcPublicClient, as O's apiKey picks, and TypeScript cannot narrow a conditional return type; the one client is both (every method exists at run time; `satisfies` checks the public shape)
  return (client satisfies SvcPublicClient) as SvcClientFor<O>
}
