/**
 * The framework's floor: the least an Effect `HttpApi` server does for svc's save and subject
 * read. One route each, no svc code: the payload decoded by its schema, the save's two inserts
 * (subject and consent, as svc writes them) in one transaction through `@effect/sql`, the read's
 * two selects, answers encoded by their schemas. SQLite in WAL at `synchronous = FULL` (svc's
 * durability: a save is answered after its commit), PostgreSQL in a given schema, or MySQL. Pools
 * of 10 connections, svc's default `database.maxConnections`.
 *
 * Bundled by scripts/bench/subjects.ts with esbuild (as `svc serve` runs a bundle) and started
 * with FLOOR_DIALECT, FLOOR_DB, FLOOR_SCHEMA and FLOOR_PORT.
 */
import {
  HttpApi,
  HttpApiBuilder,
  HttpApiEndpoint,
  HttpApiError,
  HttpApiGroup,
  HttpServer
} from "@effect/platform"
import { NodeHttpServer, NodeRuntime } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { MysqlClient } from "@effect/sql-mysql2"
import { PgClient } from "@effect/sql-pg"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { randomBytes } from "node:crypto"
import { createServer } from "node:http"
import { Effect, Layer, Redacted, Schema } from "effect"

const Receipt = Schema.Struct({ value: Schema.Boolean, confirmedAt: Schema.Number })

const Save = Schema.Struct({
  type: Schema.String,
  domain: Schema.String,
  subjectId: Schema.String,
  givenAt: Schema.Number,
  preferences: Schema.Record({ key: Schema.String, value: Schema.Boolean }),
  receipts: Schema.Record({ key: Schema.String, value: Receipt }),
  action: Schema.String,
  surface: Schema.String,
  timeToDecisionMs: Schema.Number
})

const Saved = Schema.Struct({
  subjectId: Schema.String,
  consentId: Schema.String,
  appliedPreferences: Schema.Record({ key: Schema.String, value: Schema.Boolean }),
  givenAt: Schema.Date
})

const Consent = Schema.Struct({
  id: Schema.String,
  type: Schema.String,
  domain: Schema.String,
  givenAt: Schema.Number,
  preferences: Schema.parseJson(Schema.Record({ key: Schema.String, value: Schema.Boolean })),
  receipts: Schema.parseJson(Schema.Record({ key: Schema.String, value: Receipt }))
})

const Subject = Schema.Struct({ id: Schema.String, createdAt: Schema.Number, consents: Schema.Array(Consent) })

const Api = HttpApi.make("floor").add(
  HttpApiGroup.make("subjects")
    .add(HttpApiEndpoint.post("save", "/subjects").setPayload(Save).addSuccess(Saved))
    .add(
      HttpApiEndpoint.get("read", "/subjects/:id")
        .setPath(Schema.Struct({ id: Schema.String }))
        .addSuccess(Subject)
        .addError(HttpApiError.NotFound)
    )
)

/** A BIGINT column: a number from SQLite, a decimal string from PostgreSQL (node-postgres reads int8 as text). */
const BigIntColumn = Schema.Union(Schema.Number, Schema.NumberFromString)

const Row = Schema.Struct({ id: Schema.String, created_at: BigIntColumn })
const ConsentRow = Schema.Struct({
  id: Schema.String,
  type: Schema.String,
  domain: Schema.String,
  given_at: BigIntColumn,
  preferences: Schema.String,
  receipts: Schema.String
})

const SubjectsLive = HttpApiBuilder.group(Api, "subjects", (handlers) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const decodeRow = Schema.decodeUnknown(Schema.Array(Row))
    const decodeConsents = Schema.decodeUnknown(Schema.Array(ConsentRow))
    return handlers
      .handle("save", ({ payload }) =>
        Effect.gen(function*() {
          const now = Date.now()
          const consentId = `cns_${randomBytes(16).toString("base64url")}`
          const key = randomBytes(32).toString("hex")
          const subject = sql`INTO svc_subjects (id, tenant_id, external_id, identity_provider, verified, created_at,
              updated_at) VALUES (${payload.subjectId}, '', NULL, NULL, 0, ${now}, ${now})`
          const consent = sql`INTO svc_consents (id, tenant_id, subject_id, act_key, act_digest, type, domain, given_at,
              created_at, preferences, receipts, ip_address, user_agent, action, surface, time_to_decision_ms)
              VALUES (${consentId}, '', ${payload.subjectId}, ${key}, ${key}, ${payload.type}, ${payload.domain},
              ${payload.givenAt}, ${now}, ${JSON.stringify(payload.preferences)}, ${JSON.stringify(payload.receipts)},
              '198.51.100.0', 'bench/1.0', ${payload.action}, ${payload.surface}, ${payload.timeToDecisionMs})`
          yield* sql.withTransaction(Effect.gen(function*() {
            yield* sql.onDialectOrElse({
              mysql: () => sql`INSERT IGNORE ${subject}`,
              orElse: () => sql`INSERT ${subject} ON CONFLICT DO NOTHING`
            })
            yield* sql.onDialectOrElse({
              mysql: () => sql`INSERT IGNORE ${consent}`,
              orElse: () => sql`INSERT ${consent} ON CONFLICT DO NOTHING`
            })
          }))
          return {
            subjectId: payload.subjectId,
            consentId,
            appliedPreferences: payload.preferences,
            givenAt: new Date(payload.givenAt)
          }
        }).pipe(Effect.orDie))
      .handle("read", ({ path }) =>
        Effect.gen(function*() {
          const [subject] = yield* decodeRow(
            yield* sql`SELECT id, created_at FROM svc_subjects WHERE id = ${path.id} AND tenant_id = ''`
          )
          if (subject === undefined) return yield* Effect.fail(new HttpApiError.NotFound())
          const consents = yield* decodeConsents(
            yield* sql`SELECT id, type, domain, given_at, preferences, receipts FROM svc_consents
              WHERE subject_id = ${path.id} AND tenant_id = '' ORDER BY given_at, created_at, id`
          )
          return {
            id: subject.id,
            createdAt: Number(subject.created_at),
            consents: yield* Schema.decode(Schema.Array(Consent))(
              consents.map((c) => ({ ...c, givenAt: Number(c.given_at) }))
            )
          }
        }).pipe(Effect.catchTags({ ParseError: Effect.die, SqlError: Effect.die })))
  }))

const SqliteLive = Layer.effectDiscard(
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`PRAGMA journal_mode = WAL`
    yield* sql`PRAGMA synchronous = FULL`
  })
).pipe(Layer.provideMerge(SqliteClient.layer({ filename: process.env.FLOOR_DB ?? "floor.db" })))

/** PostgreSQL in the schema svc migrated into (`search_path`, as the ceiling sets it). */
const pgUrl = () => {
  const url = new URL(process.env.FLOOR_DB ?? "postgres://postgres@127.0.0.1:5432/postgres")
  if (process.env.FLOOR_SCHEMA !== undefined)
    url.searchParams.set("options", `-c search_path=${process.env.FLOOR_SCHEMA}`)
  return Redacted.make(url.toString())
}

const Database = process.env.FLOOR_DIALECT === "postgres"
  ? PgClient.layer({ url: pgUrl(), maxConnections: 10 })
  : process.env.FLOOR_DIALECT === "mysql"
  ? MysqlClient.layer({ url: Redacted.make(process.env.FLOOR_DB!), maxConnections: 10 })
  : SqliteLive

const ServerLive = HttpApiBuilder.serve().pipe(
  Layer.provide(HttpApiBuilder.api(Api).pipe(Layer.provide(SubjectsLive))),
  HttpServer.withLogAddress,
  Layer.provide(
    NodeHttpServer.layer(createServer, { port: Number(process.env.FLOOR_PORT ?? 3000), host: "127.0.0.1" })
  ),
  Layer.provide(Database)
)

NodeRuntime.runMain(Layer.launch(ServerLive))
