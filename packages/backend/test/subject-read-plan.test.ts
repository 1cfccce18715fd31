// The plan of a subject read on MySQL/MariaDB (GET /subjects/:id): the statement the repository
// really runs (captured as it executes), then EXPLAINed with its parameters. MariaDB sorts the rows
// of an outer join through a temporary table, written to disk when they hold text columns as a
// consent's do: ~280 µs of its CPU per read against ~70 µs without (ConsentsRepo's
// findSubjectWithConsents). The read must sort its one table's rows, with no temporary table.
import { SqlClient, Statement } from "@effect/sql"
import { sqlClientLayer } from "@svc/backend"
import { Effect, Layer, Option } from "effect"
import { expect, it } from "vitest"
import { ConsentsRepo } from "../src/consents/repository.js"
import { cookieSave, newSubjectId, save } from "./support/consent-saves.js"
import { optionalServers } from "./support/optional-servers.js"
import { useServer } from "./support/server.js"
import { describeWith } from "./support/server-suites.js"

interface ExplainRow {
  readonly table: string | null
  readonly Extra: string | null
}

describeWith(optionalServers.mysql, "the subject read's plan [mysql]", () => {
  const server = useServer("mysql")
  const subjectId = newSubjectId()

  it("sorts a subject's consents without a temporary table, and reads them all", async () => {
    for (const givenAt of [Date.UTC(2024, 0, 20), Date.UTC(2024, 1, 10), Date.UTC(2024, 2, 5)]) {
      expect((await save(server, cookieSave({ subjectId, givenAt }))).status).toBe(200)
    }
    const db = server.db()
    const captured: Array<readonly [string, ReadonlyArray<unknown>]> = []
    const capture: Statement.Statement.Transformer = (statement) =>
      Effect.sync(() => {
        captured.push(statement.compile())
        return statement
      })
    const repos = ConsentsRepo.Default.pipe(Layer.provideMerge(sqlClientLayer({ _tag: "Url", ...db.database, schema: db.database.schema })))
    const [found, plans] = await Effect.runPromise(
      Effect.gen(function*() {
        const repo = yield* ConsentsRepo
        const found = yield* Statement.withTransformer(repo.findSubjectWithConsents("", subjectId), capture)
        const sql = yield* SqlClient.SqlClient
        const plans = yield* Effect.forEach(
          captured,
          ([text, params]) => sql.unsafe<ExplainRow>(`EXPLAIN ${text}`, params)
        )
        return [found, plans] as const
      }).pipe(Effect.provide(repos))
    )
    expect(Option.getOrThrow(found).consents.map((c) => c.given_at)).toEqual([
      Date.UTC(2024, 0, 20),
      Date.UTC(2024, 1, 10),
      Date.UTC(2024, 2, 5)
    ])
    // One statement for a subject with consents; its plan reads svc_consents and sorts no temporary table.
    expect(plans).toHaveLength(1)
    expect(plans[0]!.map((row) => row.table)).toContain("c")
    expect(plans[0]!.filter((row) => row.Extra?.includes("Using temporary") === true)).toEqual([])
  })
})
