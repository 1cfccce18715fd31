import { ConsentPartitions, sqlClientLayer } from "@svc/backend"
import { Effect, Layer } from "effect"
import type { FreshDatabase } from "./dialects.js"

/** The partition helpers of `@svc/backend` on a test database, through a pool of their own. */
export const onPartitions = <A>(
  db: FreshDatabase,
  use: (partitions: ConsentPartitions) => Effect.Effect<A, unknown>
): Promise<A> =>
  Effect.runPromise(
    Effect.flatMap(ConsentPartitions, use).pipe(
      Effect.provide(
        ConsentPartitions.Default.pipe(
          Layer.provide(sqlClientLayer({ _tag: "Url", ...db.database, schema: db.database.schema }))
        )
      )
    )
  )

/** The partitions of `svc_consents` by name (PostgreSQL). */
export const partitionNames = async (db: FreshDatabase): Promise<Array<string>> =>
  (await db.query(
    "SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = to_regclass('svc_consents') ORDER BY c.relname"
  )).map((row) => String(row.name))

/** The partition a consent row is stored in (PostgreSQL). */
export const partitionOf = async (db: FreshDatabase, consentId: unknown): Promise<string | undefined> => {
  const [row] = await db.query("SELECT tableoid::regclass::text AS part FROM svc_consents WHERE id = ?", [consentId])
  return row === undefined ? undefined : String(row.part).replace(/^.*\./, "")
}

/** `svc_consents_YYYY_MM` of an epoch time's UTC month. */
export const monthPartition = (epochMs: number): string => {
  const date = new Date(epochMs)
  return `svc_consents_${date.getUTCFullYear()}_${String(date.getUTCMonth() + 1).padStart(2, "0")}`
}

/** The first millisecond of the UTC month `months` after the one of `epochMs`. */
export const monthAfter = (epochMs: number, months: number): number => {
  const date = new Date(epochMs)
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + months, 1)
}
