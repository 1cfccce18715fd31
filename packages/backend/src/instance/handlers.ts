import { Layer } from "effect"
import { ConsentsHttpLive } from "../consents/http.js"
import { EventsHttpLive } from "../events/http.js"
import { HealthHttpLive } from "../health/http.js"
import { LegalDocumentsHttpLive } from "../legal/http.js"
import { SubjectsHttpLive } from "../subjects/http.js"
import { ExperimentsHttpLive } from "../experiments/http.js"
import { PolicyHttpLive } from "../policy/http.js"
import { RecordsHttpLive } from "../records/http.js"
import { StatusHttpLive } from "../status/http.js"
import { TransparencyLogHttpLive } from "../transparency/http.js"

/** One handler layer per group of the `SvcApi` contract. */
export const HandlersLive = Layer.mergeAll(
  StatusHttpLive,
  HealthHttpLive,
  PolicyHttpLive,
  SubjectsHttpLive,
  ConsentsHttpLive,
  ExperimentsHttpLive,
  LegalDocumentsHttpLive,
  RecordsHttpLive,
  EventsHttpLive,
  TransparencyLogHttpLive
)
