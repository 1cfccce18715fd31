// The plans of the reads of a subject and of an external id's subjects on MySQL/MariaDB
// (GET /subjects/:id, GET /subjects?externalId=, GET /consents/check): the statements the repository
// really runs (captured as they execute), then EXPLAINed with their parameters. MariaDB sorts rows
// joined to a table read before svc_consents (an outer join's, a subquery's subjects) through a
// temporary table, written to disk when they hold text columns as a consent's do: ~280-420 µs of
// its CPU per read against ~70 µs without (ConsentsRepo). No read may use a temporary table.
import { SqlClient } from "@effect/sql"
import { sqlClientLayer } from "@svc/backend"
import { Effect, Layer, Option } from "effect"
import { expect, it } from "vitest"
import { ConsentsRepo } from "../src/consents/repository.js"
import { withCapturedStatements } from "./support/captured-statements.js"
import { bearer, cookieSave, newSubjectId, save } from "./support/consent-saves.js"
import { optionalServers } from "./support/optional-servers.js"
import { useServer } from "./support/server.js"
import { describeWith } from "./support/server-suites.js"

const API_KEY = "subject-read-plan-key-0123456789abcdef"

interface ExplainRow {
  readonly table: string | null
  readonly Extra: string | null
}

describeWith(optionalServers.mysql, "the subject reads' plans [mysql]", () => {
  const server = useServer("mysql", { apiKeys: [API_KEY] })
  const subjectId = newSubjectId()
  const times = [Date.UTC(2024, 0, 20), Date.UTC(2024, 1, 10), Date.UTC(2024, 2, 5)]

  /** Runs `read`, then EXPLAINs each statement it ran: its result and the plans' rows. */
  const plansOf = async <A>(read: (repo: ConsentsRepo) => Effect.Effect<A, unknown>) => {
    const db = server.db()
    const base = sqlClientLayer({ _tag: "Url", ...db.database, schema: db.database.schema })
    return Effect.runPromise(
      Effect.gen(function*() {
        const { statements, value } = yield* withCapturedStatements(Effect.flatMap(ConsentsRepo, read))
        const sql = yield* SqlClient.SqlClient
        const plans = yield* Effect.forEach(
          statements,
          ([text, params]) => sql.unsafe<ExplainRow>(`EXPLAIN ${text}`, params)
        )
        return { result: value, plans }
      }).pipe(Effect.provide(ConsentsRepo.Default.pipe(Layer.provideMerge(base))))
    )
  }
  const expectNoTemporaryTable = (plans: ReadonlyArray<ReadonlyArray<ExplainRow>>) => {
    expect(plans).toHaveLength(1)
    expect(plans[0]!.map((row) => row.table)).toContain("c")
    expect(plans[0]!.filter((row) => row.Extra?.includes("Using temporary") === true)).toEqual([])
  }

  it("saves three acts of a subject linked, verified, to an external id", async () => {
    for (const givenAt of times) {
      const body = cookieSave({ subjectId, givenAt, externalSubjectId: "plan-shopper" })
      expect((await save(server, body, bearer(API_KEY))).status).toBe(200)
    }
  })

  it("GET /subjects/:id: its consents oldest first, without a temporary table", async () => {
    const { plans, result } = await plansOf((repo) => repo.findSubjectWithConsents("", subjectId))
    expect(Option.getOrThrow(result).consents.map((c) => c.given_at)).toEqual(times)
    expectNoTemporaryTable(plans)
  })

  it("GET /subjects?externalId=: the subjects' consents by their ids, oldest first, without a temporary table", async () => {
    const { plans, result } = await plansOf((repo) => repo.listBySubjects({ tenantId: "", subjectIds: [subjectId] }))
    expect(result.map((c) => c.given_at)).toEqual(times)
    expectNoTemporaryTable(plans)
  })

  it("GET /consents/check: the consents of the types asked for, without a temporary table", async () => {
    const { plans, result } = await plansOf((repo) =>
      repo.listTypesByVerifiedExternalId({ tenantId: "", externalId: "plan-shopper", types: ["cookie_banner"] })
    )
    expect([...result.map((c) => c.given_at)].sort()).toEqual(times)
    expectNoTemporaryTable(plans)
  })
})
