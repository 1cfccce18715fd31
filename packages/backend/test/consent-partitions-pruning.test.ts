// The plans of the reads over a partitioned svc_consents (PostgreSQL, ADR 0095): the statements
// the period export, the insight page and a subject read really run (captured as they execute),
// then EXPLAINed with their parameters. A period reads only the months it overlaps, each through
// an index; a subject read (no time bound) reads each month's subject index. Plans are taken with
// sequential scans disabled: these tables are tiny, and the question is whether an index serves.
import { SqlClient } from "@effect/sql"
import { sqlClientLayer } from "@svc/backend"
import { Effect, Layer } from "effect"
import { expect, it } from "vitest"
import { ConsentsRepo } from "../src/consents/repository.js"
import { ReadSqlClient } from "../src/database/read-client.js"
import { InsightRepo } from "../src/insight/repository.js"
import { periodTotals } from "../src/insight/totals.js"
import { PeriodRecordsRepo } from "../src/records/period-repository.js"
import { withCapturedStatements } from "./support/captured-statements.js"
import { cookieSave, newSubjectId, save } from "./support/consent-saves.js"
import { onPartitions } from "./support/consent-partitions.js"
import { optionalServers } from "./support/optional-servers.js"
import { useServer } from "./support/server.js"
import { describeWith } from "./support/server-suites.js"

interface PlanNode {
  readonly "Node Type": string
  readonly "Relation Name"?: string
  readonly "Index Name"?: string
  readonly Plans?: ReadonlyArray<PlanNode>
}

/** One read of a partition of svc_consents in a plan: the partition, the node, the index it reads. */
interface Scan {
  readonly relation: string
  readonly type: string
  readonly index: string | undefined
}

/** The first index a node or its children read (a Bitmap Heap Scan's is its Bitmap Index Scan's). */
const indexOf = (node: PlanNode): string | undefined =>
  node["Index Name"] ?? (node.Plans ?? []).map(indexOf).find((name) => name !== undefined)

/** Every read of a partition of svc_consents (or the table itself) in a plan. */
const consentScans = (node: PlanNode): Array<Scan> => [
  ...(node["Relation Name"]?.startsWith("svc_consents") === true
    ? [{ relation: node["Relation Name"], type: node["Node Type"], index: indexOf(node) }]
    : []),
  ...(node.Plans ?? []).flatMap(consentScans)
]

describeWith(optionalServers.postgres, "partition pruning of the reads over svc_consents [postgres]", () => {
  const server = useServer("postgres")
  const subjectId = newSubjectId()

  /** Runs `read`, then EXPLAINs each statement it ran over svc_consents; the scans of each plan. */
  const plansOf = async (
    read: Effect.Effect<
      unknown,
      unknown,
      SqlClient.SqlClient | ReadSqlClient | ConsentsRepo | InsightRepo | PeriodRecordsRepo
    >
  ) => {
    const db = server.db()
    const base = sqlClientLayer({ _tag: "Url", ...db.database, schema: db.database.schema })
    const read$ = Layer.effect(ReadSqlClient, SqlClient.SqlClient)
    const repos = Layer.mergeAll(ConsentsRepo.Default, InsightRepo.Default, PeriodRecordsRepo.Default).pipe(
      Layer.provideMerge(read$),
      Layer.provideMerge(base)
    )
    return Effect.runPromise(
      Effect.gen(function*() {
        const { statements } = yield* withCapturedStatements(read)
        const sql = yield* SqlClient.SqlClient
        const plans: Array<Array<Scan>> = []
        for (const [text, params] of statements.filter(([text]) => text.includes("svc_consents"))) {
          const rows = yield* sql.withTransaction(
            sql`SET LOCAL enable_seqscan = off`.pipe(
              Effect.zipRight(sql.unsafe<{ "QUERY PLAN": ReadonlyArray<{ Plan: PlanNode }> }>(
                `EXPLAIN (FORMAT JSON) ${text}`,
                params
              ))
            )
          )
          plans.push(consentScans(rows[0]!["QUERY PLAN"][0]!.Plan))
        }
        return plans
      }).pipe(Effect.provide(repos))
    )
  }

  it("sets up acts in three months: one subject's, and 6,000 of other subjects", async () => {
    const db = server.db()
    await onPartitions(db, (p) => p.ensureAhead(Date.UTC(2024, 0, 10)))
    for (const givenAt of [Date.UTC(2024, 0, 20), Date.UTC(2024, 1, 10), Date.UTC(2024, 1, 20), Date.UTC(2024, 2, 5)]) {
      expect((await save(server, cookieSave({ subjectId, givenAt }))).status).toBe(200)
    }
    await db.query(
      `INSERT INTO svc_consents (id, tenant_id, subject_id, act_key, act_digest, type, domain, given_at,
        created_at, receipts, action)
      SELECT 'cns_bulk_' || n, '', 'sub_bulk_' || (n % 2000), 'bulk_' || n, 'd', 'cookie_banner', 'example.com',
        ?::bigint + n::bigint * 1000000, ?::bigint + n::bigint * 1000000, '[]', 'accept_all'
      FROM generate_series(1, 6000) AS n`,
      [Date.UTC(2024, 0, 1), Date.UTC(2024, 0, 1)]
    )
    await db.query("VACUUM ANALYZE svc_consents")
    const [count] = await db.query("SELECT COUNT(*) AS n FROM svc_consents_2024_02")
    expect(Number(count?.n)).toBeGreaterThan(2000)
  })

  it("a period export of February reads February's partition only, through an index", async () => {
    const [plan] = await plansOf(Effect.flatMap(PeriodRecordsRepo, (repo) =>
      repo.page({
        tenantId: "",
        fromMs: Date.UTC(2024, 1, 1),
        toMs: Date.UTC(2024, 2, 1) - 1,
        type: undefined,
        domain: undefined,
        policyId: undefined,
        after: undefined,
        limit: 100
      })))
    expect(plan!.map((scan) => scan.relation)).toEqual(["svc_consents_2024_02"])
    expect(plan!.every((scan) => scan.index?.endsWith("_tenant_id_given_at_id_idx"))).toBe(true)
  })

  it("a period across two months reads those two", async () => {
    const [plan] = await plansOf(Effect.flatMap(PeriodRecordsRepo, (repo) =>
      repo.page({
        tenantId: "",
        fromMs: Date.UTC(2024, 0, 15),
        toMs: Date.UTC(2024, 1, 15),
        type: undefined,
        domain: undefined,
        policyId: undefined,
        after: undefined,
        limit: 100
      })))
    expect(plan!.map((scan) => scan.relation).sort()).toEqual(["svc_consents_2024_01", "svc_consents_2024_02"])
    expect(plan!.every((scan) => scan.index?.endsWith("_tenant_id_given_at_id_idx"))).toBe(true)
  })

  it("the insight page's statement over February reads February's partition only, from the insight index", async () => {
    const scope = { tenantId: "", fromMs: Date.UTC(2024, 1, 1), toMs: Date.UTC(2024, 2, 1), domain: null }
    const plans = await plansOf(
      Effect.flatMap(InsightRepo, (repo) => repo.totals(scope, periodTotals(scope.fromMs, scope.toMs).add))
    )
    expect(plans).toHaveLength(1)
    for (const plan of plans) {
      expect([...new Set(plan.map((scan) => scan.relation))]).toEqual(["svc_consents_2024_02"])
      // The insight index (migration 21) is the only one with an expression: its copy here is `…_expr_…`.
      expect(plan.every((scan) => scan.type === "Index Only Scan" && scan.index?.includes("_expr_"))).toBe(true)
    }
  })

  it("a subject read, with no time bound, reads each month's subject index", async () => {
    const [plan] = await plansOf(
      Effect.flatMap(ConsentsRepo, (repo) => repo.listBySubject({ tenantId: "", subjectId }))
    )
    expect(plan!.length).toBeGreaterThanOrEqual(4)
    // Every partition is read through an index; those with rows (an empty one's plan is moot) through
    // their subject index.
    for (const scan of plan!) expect(scan.index).toBeDefined()
    const filled = plan!.filter((scan) => scan.relation.startsWith("svc_consents_2024_"))
    expect(filled.map((scan) => scan.relation).sort()).toEqual([
      "svc_consents_2024_01",
      "svc_consents_2024_02",
      "svc_consents_2024_03"
    ])
    for (const scan of filled) expect(scan.index).toMatch(/_subject_id_given_at_idx$/)
  })
})
