import { HttpApi, OpenApi } from "@effect/platform"
import {
  DatabaseErrorWire,
  InternalErrorWire,
  InvalidRequestWire,
  PayloadTooLargeWire,
  UnsupportedMediaTypeWire
} from "./errors.js"
import { ConsentsGroup } from "./groups/consents.js"
import { EventsGroup } from "./groups/events.js"
import { ExperimentsGroup } from "./groups/experiments.js"
import { LegalDocumentsGroup } from "./groups/legal-documents.js"
import { PolicyGroup } from "./groups/policy.js"
import { RecordsGroup } from "./groups/records.js"
import { StatusGroup } from "./groups/status.js"
import { SubjectsGroup } from "./groups/subjects.js"
import { TransparencyLogGroup } from "./groups/transparency-log.js"

/**
 * The whole svc HTTP contract. Server routes, `/spec.json` and the typed client all derive from it.
 * Errors every route can answer with are declared once here.
 */
export class SvcApi extends HttpApi.make("svc")
  .add(StatusGroup)
  .add(PolicyGroup)
  .add(SubjectsGroup)
  .add(ConsentsGroup)
  .add(ExperimentsGroup)
  .add(LegalDocumentsGroup)
  .add(RecordsGroup)
  .add(EventsGroup)
  .add(TransparencyLogGroup)
  .addError(InvalidRequestWire)
  .addError(PayloadTooLargeWire)
  .addError(UnsupportedMediaTypeWire)
  .addError(DatabaseErrorWire)
  .addError(InternalErrorWire)
  .annotate(OpenApi.Title, "svc consent backend") {}
