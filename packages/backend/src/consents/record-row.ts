import { Schema } from "effect"
import { Millis } from "../database/columns.js"
import { ConsentColumns, ConsentRow } from "./repository.js"

const Text = Schema.NullOr(Schema.String)

/** A consent row with everything an export shows: the proof fields and how the act was collected. */
export const RecordRow = Schema.Struct({
  ...ConsentRow.fields,
  ip_address: Text,
  user_agent: Text,
  action: Text,
  surface: Text,
  erased_at: Schema.NullOr(Millis),
  // What an export's transparency-log proofs are made of (`proofs=true`).
  ...ConsentColumns.pick("tenant_id", "log_commitment").fields,
  log_index: Schema.NullOr(Millis)
})
export type RecordRow = typeof RecordRow.Type
