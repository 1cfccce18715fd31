// Monthly partitions of svc_consents on PostgreSQL (ADR 0095): made ahead by every instance, safe
// when several do it at once; an act at an odd date lands in the default partition and moves into
// its month's when that is made, idempotent throughout; retention with dropExpiredMonths drops the
// months wholly past recordDays (never one holding another tenant's rows) and retires the rest as
// before; the transparency log still verifies, and still names a row deleted behind its back.
// Elsewhere svc_consents stays one table and the same calls change nothing.
import { generateLogSignerKey, purgeOnce, type SvcOptions, verifyTransparencyLog } from "@svc/backend"
import { startServer } from "@svc/server"
import pg from "pg"
import { describe, expect, it } from "vitest"
import { bearer, call, cookieSave, newSubjectId, save } from "./support/consent-saves.js"
import { monthAfter, monthPartition, onPartitions, partitionNames, partitionOf } from "./support/consent-partitions.js"
import { dialects } from "./support/dialects.js"
import { optionalServers } from "./support/optional-servers.js"
import { useServer } from "./support/server.js"
import { describeWith } from "./support/server-suites.js"
import { eventually } from "./support/webhook-receiver.js"

const API_KEY = "partitions-key-0123456789abcdef-0123"
const DAY = 86_400_000
const { signerKey } = generateLogSignerKey("svc.test/partitions")
const transparencyLog = { signingKey: signerKey, checkpointIntervalSeconds: 1 }

describeWith(optionalServers.postgres, "monthly partitions of svc_consents [postgres]", () => {
  const server = useServer("postgres", { apiKeys: [API_KEY], transparencyLog })
  const options = (): SvcOptions => ({ database: server.db().database, apiKeys: [API_KEY], transparencyLog })

  it("an instance makes the months ahead at start, when one is missing; with consentPartitions: external it does not", async () => {
    const db = server.db()
    const ahead = monthPartition(monthAfter(Date.now(), 2))
    await db.query(`DROP TABLE ${ahead}`)
    const start = (extra: Partial<SvcOptions>) =>
      startServer({ ...options(), ...extra, observability: { requests: "none" } }, { port: 0, host: "127.0.0.1" })
    const external = await start({ consentPartitions: "external" })
    try {
      await new Promise((resolve) => setTimeout(resolve, 1000))
      expect(await partitionNames(db)).not.toContain(ahead)
    } finally {
      await external.close()
    }
    const second = await start({})
    try {
      await eventually(async () => (await partitionNames(db)).includes(ahead), 10_000, `${ahead} made`)
    } finally {
      await second.close()
    }
  })

  it("stores an act at an odd date in the default partition, then moves it into its month when that is made", async () => {
    const db = server.db()
    const body = cookieSave({ subjectId: newSubjectId(), givenAt: Date.UTC(2015, 2, 10, 8) })
    const first = await save(server, body)
    expect(first.status, JSON.stringify(first.body)).toBe(200)
    expect(await partitionOf(db, first.body.consentId)).toBe("svc_consents_default")
    expect((await save(server, body)).body.consentId).toBe(first.body.consentId)

    const made = await onPartitions(db, (p) => p.ensureAhead(Date.UTC(2015, 2, 20)))
    expect(made).toEqual(["svc_consents_2015_03", "svc_consents_2015_04", "svc_consents_2015_05"])
    expect(await partitionOf(db, first.body.consentId)).toBe("svc_consents_2015_03")
    const replay = await save(server, body)
    expect(replay.status).toBe(200)
    expect(replay.body.consentId).toBe(first.body.consentId)
    const [count] = await db.query("SELECT COUNT(*) AS n FROM svc_consents WHERE subject_id = ?", [body.subjectId])
    expect(Number(count?.n)).toBe(1)
    const view = await call(server, "GET", `/subjects/${String(body.subjectId)}`)
    expect(view.body.consents).toHaveLength(1)
  })

  it("several instances making the same months at once make each once", async () => {
    const db = server.db()
    const at = Date.UTC(2031, 0, 5)
    const runs = await Promise.all([1, 2, 3, 4].map(() => onPartitions(db, (p) => p.ensureAhead(at))))
    expect(runs.flat().sort()).toEqual(["svc_consents_2031_01", "svc_consents_2031_02", "svc_consents_2031_03"])
    expect(runs.filter((made) => made.length > 0)).toHaveLength(1)
  })

  it("retention drops the months wholly past recordDays, retires the rest, and the log still verifies", async () => {
    const db = server.db()
    await onPartitions(db, (p) => p.ensureAhead(Date.UTC(2015, 1, 1))) // February 2015 too
    const at = (y: number, m: number, d: number) => Date.UTC(y, m, d, 12)
    const saved: Record<string, string> = {}
    for (const [name, givenAt] of [["april", at(2015, 3, 9)], ["mayEarly", at(2015, 4, 2)], ["mayLate",
      at(2015, 4, 25)]] as const)
    {
      const answer = await save(server, cookieSave({ givenAt }))
      expect(answer.status).toBe(200)
      saved[name] = String(answer.body.consentId)
    }
    // Another tenant's act in February 2015: that month is not this instance's to drop.
    const [template] = await db.query("SELECT * FROM svc_consents WHERE id = ?", [saved.april])
    const other = {
      ...template,
      id: "cns_other_tenant_0000000000",
      tenant_id: "other",
      act_key: "other-act",
      given_at: at(2015, 1, 3),
      log_index: null
    }
    const names = Object.keys(other)
    await db.query(
      `INSERT INTO svc_consents (${names.join(", ")}) VALUES (${names.map(() => "?").join(", ")})`,
      Object.values(other)
    )
    await eventually(
      async () => {
        const [pending] = await db.query(
          "SELECT COUNT(*) AS n FROM svc_consents WHERE tenant_id = '' AND log_index IS NULL"
        )
        return Number(pending?.n) === 0
      },
      15_000,
      "every act sequenced"
    )
    await eventually(async () => (await verifyTransparencyLog(options())).pending === 0, 15_000, "a checkpoint")
    const [sequenced] = await db.query(
      "SELECT COUNT(*) AS n FROM svc_consents WHERE tenant_id = '' AND given_at >= ? AND given_at < ?",
      [Date.UTC(2015, 2, 1), Date.UTC(2015, 4, 1)]
    )

    // June 14th, 30 days: the cutoff is May 15th. March and April go whole; February holds another
    // tenant's act and stays; in May the early act is retired row by row, the late one kept.
    const report = await purgeOnce({ ...options(), retention: { recordDays: 30, dropExpiredMonths: true } }, {
      now: Date.UTC(2015, 5, 14, 12)
    })
    expect(report).toMatchObject({ monthsDropped: 2, recordsRetired: 1 })
    const left = await partitionNames(db)
    expect(left).not.toContain("svc_consents_2015_03")
    expect(left).not.toContain("svc_consents_2015_04")
    expect(left).toContain("svc_consents_2015_02")
    expect(left).toContain("svc_consents_2015_05")
    expect(await partitionOf(db, saved.april)).toBeUndefined()
    expect(await partitionOf(db, "cns_other_tenant_0000000000")).toBe("svc_consents_2015_02")
    const [early] = await db.query("SELECT subject_id FROM svc_consents WHERE id = ?", [saved.mayEarly])
    expect(early?.subject_id).toBe("retired")
    const [late] = await db.query("SELECT subject_id FROM svc_consents WHERE id = ?", [saved.mayLate])
    expect(late?.subject_id).not.toBe("retired")
    const drops = await db.query("SELECT month_start, sequenced FROM svc_consent_drops ORDER BY month_start")
    expect(drops.map((d) => Number(d.month_start))).toEqual([Date.UTC(2015, 2, 1), Date.UTC(2015, 3, 1)])
    expect(drops.reduce((sum, d) => sum + Number(d.sequenced), 0)).toBe(Number(sequenced?.n))
    expect(Number(sequenced?.n)).toBeGreaterThanOrEqual(2)

    // The same run again drops nothing more.
    expect(
      (await purgeOnce({ ...options(), retention: { recordDays: 30, dropExpiredMonths: true } }, {
        now: Date.UTC(2015, 5, 14, 12)
      })).monthsDropped
    ).toBe(0)
    // The log: the dropped acts' leaves stay, every checkpoint's root is recomputed and matches.
    const verified = await verifyTransparencyLog(options())
    expect(verified.problems).toEqual([])
    // A dropped record has no proof any more; a kept one (retired in May) still has its proof.
    expect((await call(server, "GET", `/log/proof/${saved.april}`, undefined, bearer(API_KEY))).status).toBe(404)
    expect((await call(server, "GET", `/log/proof/${saved.mayEarly}`, undefined, bearer(API_KEY))).status).toBe(200)
    // A row deleted by hand is still named: the missing rows no longer match the drops' count.
    await db.query("DELETE FROM svc_consents WHERE id = ?", [saved.mayLate])
    const tampered = await verifyTransparencyLog(options())
    expect(tampered.problems.map((p) => p.consentId)).toContain(saved.mayLate)
    expect(tampered.problems.map((p) => p.message).join("\n")).toMatch(/retention dropped \d+ sequenced records/)
  }, 60_000)

  it(
    "a drop that cannot get the table (a long read holds it) waits for the next run; its rows are retired meanwhile",
    async () => {
      const db = server.db()
      await onPartitions(db, (p) => p.ensureAhead(Date.UTC(2016, 0, 1)))
      const january = await save(server, cookieSave({ givenAt: Date.UTC(2016, 0, 10) }))
      expect(await partitionOf(db, january.body.consentId)).toBe("svc_consents_2016_01")
      const reader = new pg.Client({ connectionString: db.database.url })
      await reader.connect()
      const purge = () =>
        purgeOnce({ ...options(), retention: { recordDays: 30, dropExpiredMonths: true } }, {
          now: Date.UTC(2016, 3, 15)
        })
      try {
        await reader.query(`SET search_path TO ${db.database.schema}`)
        await reader.query("BEGIN")
        await reader.query("SELECT COUNT(*) FROM svc_consents")
        const held = await purge()
        expect(held.monthsDropped).toBe(0)
        expect(held.recordsRetired).toBeGreaterThanOrEqual(1)
        const [retired] = await db.query("SELECT subject_id FROM svc_consents WHERE id = ?", [january.body.consentId])
        expect(retired?.subject_id).toBe("retired")
      } finally {
        await reader.query("ROLLBACK")
        await reader.end()
      }
      const free = await purge()
      expect(free.monthsDropped).toBeGreaterThanOrEqual(2)
      const left = await partitionNames(db)
      expect(left).not.toContain("svc_consents_2016_01")
      expect(left).not.toContain("svc_consents_2016_02")
      expect(left).toContain("svc_consents_2016_03")
    },
    60_000
  )

  // A move between partitions is a DELETE and an INSERT: the sequencer's UPDATE of the act's index,
  // waiting for the move's lock, then finds no row. Its batch must not commit a leaf that no row
  // claims (the act would be sequenced again, a second leaf).
  it("an act moved between partitions while the sequencer sets its index gets exactly one leaf", async () => {
    const db = server.db()
    const mover = new pg.Client({ connectionString: db.database.url })
    await mover.connect()
    await mover.query(`SET search_path TO ${db.database.schema}`)
    // Asked on another connection: inside the move's transaction pg_stat_activity would not change.
    const sequencerWaits = async () => {
      const [waiting] = await db.query(
        `SELECT COUNT(*) AS n FROM pg_stat_activity WHERE datname = current_database()
          AND wait_event_type = 'Lock' AND query LIKE 'UPDATE svc_consents SET log_index%'`
      )
      return Number(waiting?.n) > 0
    }
    try {
      let moved: string | undefined
      // The sequencer may take an act before the move does: then try another.
      for (let attempt = 0; attempt < 5 && moved === undefined; attempt++) {
        const act = await save(server, cookieSave({ givenAt: Date.UTC(2013, 5, 10 + attempt) }))
        expect(act.status).toBe(200)
        const id = String(act.body.consentId)
        await mover.query("BEGIN")
        const { rows } = await mover.query(
          `WITH gone AS (DELETE FROM svc_consents WHERE id = $1 RETURNING *)
            INSERT INTO svc_consents SELECT * FROM gone RETURNING log_index`,
          [id]
        )
        if (rows[0]?.log_index !== null) {
          await mover.query("ROLLBACK")
          continue
        }
        const caught = await eventually(sequencerWaits, 10_000, "the sequencer waiting for the moved row").then(
          () => true,
          () => false
        )
        await mover.query("COMMIT")
        if (caught) moved = id
      }
      expect(moved, "the sequencer met a moved act").toBeDefined()
      await eventually(
        async () => {
          const [pending] = await db.query(
            "SELECT COUNT(*) AS n FROM svc_consents WHERE id = ? AND log_index IS NULL",
            [
              moved
            ]
          )
          return Number(pending?.n) === 0
        },
        15_000,
        "the moved act sequenced"
      )
      const leaves = await db.query("SELECT leaf_index FROM svc_log_leaves WHERE consent_id = ?", [moved])
      expect(leaves).toHaveLength(1)
      const [row] = await db.query("SELECT log_index FROM svc_consents WHERE id = ?", [moved])
      expect(Number(row?.log_index)).toBe(Number(leaves[0]?.leaf_index))
      // (The test before this one deleted a row by hand, so the log has a problem, but not this act.)
      await eventually(async () => (await verifyTransparencyLog(options())).pending === 0, 15_000, "a checkpoint")
      const { problems } = await verifyTransparencyLog(options())
      expect(problems.filter((p) => p.consentId === moved || p.message.includes(String(moved)))).toEqual([])
    } finally {
      await mover.end()
    }
  }, 60_000)
})

describe.each(dialects.filter((d) => d !== "postgres"))("svc_consents stays one table [%s]", (dialect) => {
  const server = useServer(dialect)

  it("has no partitions to make or drop, and dropExpiredMonths retires rows as before", async () => {
    const db = server.db()
    expect(await onPartitions(db, (p) => p.ensureAhead(Date.now()))).toEqual([])
    const old = await save(server, cookieSave({ givenAt: Date.now() - 400 * DAY }))
    expect(old.status).toBe(200)
    const report = await purgeOnce({ database: db.database, retention: { recordDays: 30, dropExpiredMonths: true } })
    expect(report).toMatchObject({ monthsDropped: 0, recordsRetired: 1 })
    const [row] = await db.query("SELECT subject_id FROM svc_consents WHERE id = ?", [old.body.consentId])
    expect(row?.subject_id).toBe("retired")
  })
})
