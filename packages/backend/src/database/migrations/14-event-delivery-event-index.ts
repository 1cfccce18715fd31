import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** Deliveries by event: the purge of delivered events asks, per event, whether any delivery still needs it. */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE INDEX svc_event_deliveries_event ON svc_event_deliveries (event_seq)`
})
