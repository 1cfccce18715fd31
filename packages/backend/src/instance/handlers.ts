import { Layer } from "effect"
import {
  ConsentsHttpPending,
  LegalDocumentsHttpPending,
  SubjectsHttpPending
} from "../http/pending.js"
import { ExperimentsHttpLive } from "../experiments/http.js"
import { PolicyHttpLive } from "../policy/http.js"
import { StatusHttpLive } from "../status/http.js"

/** One handler layer per group of the `SvcApi` contract. */
export const HandlersLive = Layer.mergeAll(
  StatusHttpLive,
  PolicyHttpLive,
  SubjectsHttpPending,
  ConsentsHttpPending,
  ExperimentsHttpLive,
  LegalDocumentsHttpPending
)
