import { SqlClient, SqlSchema } from "@effect/sql"
import { createHmac, randomBytes } from "node:crypto"
import { Clock, Effect, Schema } from "effect"
import { orDatabaseError } from "../database/database-error.js"

const SECRET_NAME = "erasure-hmac"

/**
 * The key of the erasure hash: a random 256-bit secret generated on the first erasure and kept in
 * `svc_secrets` (insert-if-absent, so every replica reads the same one). The erased id becomes
 * `erased_` + HMAC-SHA256(key, tenant NUL subjectId) in base64url: whoever holds the database can
 * recompute it for an id they are shown, nobody can reverse it, and the raw id is never stored.
 */
export class ErasureKey extends Effect.Service<ErasureKey>()("@svc/backend/ErasureKey", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const read = SqlSchema.findOne({
      Request: Schema.String,
      Result: Schema.Struct({ value: Schema.String }),
      execute: (name) => sql`SELECT value FROM svc_secrets WHERE name = ${name}`
    })
    const create = (value: string, now: number) => {
      const insert = sql`INTO svc_secrets (name, value, created_at) VALUES (${SECRET_NAME}, ${value}, ${now})`
      return sql.onDialectOrElse({
        mysql: () => sql`INSERT IGNORE ${insert}`,
        orElse: () => sql`INSERT ${insert} ON CONFLICT DO NOTHING`
      })
    }
    let cached: Buffer | undefined

    const key = Effect.suspend(() => {
      if (cached !== undefined) return Effect.succeed(cached)
      return Effect.gen(function*() {
        yield* create(randomBytes(32).toString("base64url"), yield* Clock.currentTimeMillis)
        const row = yield* read(SECRET_NAME)
        if (row._tag === "None") return yield* Effect.dieMessage("the erasure key could not be stored")
        cached = Buffer.from(row.value.value, "base64url")
        return cached
      }).pipe(orDatabaseError)
    })

    /** The anonymous id an erased subject's records are kept under. */
    const hashedId = (tenantId: string, subjectId: string) =>
      Effect.map(
        key,
        (k) => `erased_${createHmac("sha256", k).update(`${tenantId}\u0000${subjectId}`).digest("base64url")}`
      )

    return { hashedId } as const
  })
}) {}
