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

/** A client created with an `apiKey`: every method. */
export interface SvcClient extends ServiceMethods {
  readonly consents: { readonly check: ConsentCheckMethod; readonly export: ConsentExportMethod }
  readonly subjects: SubjectMethods
  readonly legalDocuments: LegalDocumentMethods
  readonly experiments: ExperimentMethods
  readonly events: EventMethods
  readonly log: LogMethods
}

/** A client created without an `apiKey`: no key-only methods. */
export interface SvcPublicClient extends ServiceMethods {
  readonly subjects: PublicSubjectMethods
  readonly log: PublicLogMethods
}

/** `SvcClient` when `apiKey` may be set (a `string`, or `string | undefined`); `SvcPublicClient` when it is absent. */
export type SvcClientFor<O> = O extends { readonly apiKey: string } ? SvcClient
  : "apiKey" extends keyof O ? [NonNullable<O[keyof O & "apiKey"]>] extends [never] ? SvcPublicClient : SvcClient
  : SvcPublicClient

/**
 * Creates a client. Throws `SvcConfigurationError` (listing every problem) for invalid options;
 * nothing else ever throws, and no environment variable is read. Methods resolve to results.
 * At run time every method exists; a key-only method on a client without a key returns
 * `MISSING_API_KEY` and sends nothing.
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
  return client as SvcClientFor<O>
}
