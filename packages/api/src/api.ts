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
import { HealthGroup } from "./groups/health.js"
import { LegalDocumentsGroup } from "./groups/legal-documents.js"
import { PolicyGroup } from "./groups/policy.js"
import { RecordsGroup } from "./groups/records.js"
import { StatusGroup } from "./groups/status.js"
import { SubjectsGroup } from "./groups/subjects.js"
import { TransparencyLogGroup } from "./groups/transparency-log.js"

/**
 * The whole svc HTTP contract. Server routes, `/spec.json` and the typed client all derive from it.
 * Errors every route can answer with are declared once here.
 *
 * @example
 * ```ts
 * import { OpenApi } from "@effect/platform"
 * import { SvcApi } from "@svc/api"
 * import { writeFileSync } from "node:fs"
 *
 * // A docs build writes the same OpenAPI document the server publishes as /spec.json.
 * const spec = OpenApi.fromApi(SvcApi)
 * writeFileSync("openapi.json", JSON.stringify(spec, null, 2))
 * console.log(`${Object.keys(spec.paths).length} paths, version ${spec.info.version}`)
 * ```
 */
export class SvcApi extends HttpApi.make("svc")
  .add(StatusGroup)
  .add(HealthGroup)
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
  .annotate(OpenApi.Title, "svc consent backend")
  .annotate(
    OpenApi.Description,
    "Self-hosted consent management. `GET /init` resolves the visitor's policy rule from their location: " +
      "an override, a CDN's country header, or the client IP looked up in an IP location database. " +
      "The built-in database is IP Geolocation by DB-IP (https://db-ip.com), IP to City Lite, licensed under " +
      "CC BY 4.0 (https://creativecommons.org/licenses/by/4.0/); an operator may configure their own instead."
  ) {}
