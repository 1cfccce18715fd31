import { describe, expect, it } from "@effect/vitest"
import { beforeAll } from "vitest"
import { Effect } from "effect"
import { dialects } from "./support/dialects.js"
import { type TestServer, useServer } from "./support/server.js"

const API_KEY = "experiments-key-0123456789abcdef"

interface Save {
  readonly at: string
  readonly arm: string | null
  readonly action?: string | null
  readonly surface?: string | null
  readonly t?: number | null
  readonly domain?: string
  readonly tenant?: string
  readonly experiment?: string | null
  readonly type?: string
}

/**
 * Hand-computed fixture for experiment `exp1` in single-tenant scope (tenant `''`):
 *
 *   arm A: 2025-12-31T23:59:59.999 accept_all/banner t=5, 01-01T00:00 accept_all/banner t=100,
 *          01-05 accept_all/banner (no time, domain B.EXAMPLE),
 *          01-15T12:00 reject_all/dialog t=301, 01-20 opt_out/api (no time, b.com),
 *          01-31T23:59:59.999 custom/widget t=200, 02-01T00:00 accept_all/banner t=1000
 *   arm B: 01-10 accept_all/banner t=10, 01-11 accept_all/(no surface) t=20 (b.com),
 *          01-12 (no action)/dialog t=40, 01-13 reject_all/banner t=30
 *
 * plus saves that must never count: another type, another tenant, another experiment, none.
 */
const fixture: ReadonlyArray<Save> = [
  { at: "2025-12-31T23:59:59.999Z", arm: "A", action: "accept_all", surface: "banner", t: 5 },
  { at: "2026-01-01T00:00:00.000Z", arm: "A", action: "accept_all", surface: "banner", t: 100 },
  { at: "2026-01-15T12:00:00.000Z", arm: "A", action: "reject_all", surface: "dialog", t: 301 },
  { at: "2026-01-20T08:00:00.000Z", arm: "A", action: "opt_out", surface: "api", t: null, domain: "b.example" },
  { at: "2026-01-31T23:59:59.999Z", arm: "A", action: "custom", surface: "widget", t: 200 },
  { at: "2026-02-01T00:00:00.000Z", arm: "A", action: "accept_all", surface: "banner", t: 1000 },
  { at: "2026-01-10T10:00:00.000Z", arm: "B", action: "accept_all", surface: "banner", t: 10 },
  { at: "2026-01-11T10:00:00.000Z", arm: "B", action: "accept_all", surface: null, t: 20, domain: "b.example" },
  { at: "2026-01-12T10:00:00.000Z", arm: "B", action: null, surface: "dialog", t: 40 },
  { at: "2026-01-13T10:00:00.000Z", arm: "B", action: "reject_all", surface: "banner", t: 30 },
  // never counted in single-tenant scope
  { at: "2026-01-05T10:00:00.000Z", arm: "A", action: "accept_all", surface: "banner", t: 1, type: "privacy_policy" },
  { at: "2026-01-05T10:00:00.000Z", arm: "A", action: "accept_all", surface: "banner", t: 7, tenant: "acme" },
  { at: "2026-01-06T10:00:00.000Z", arm: "C", action: "custom", surface: "widget", t: 9, tenant: "acme" },
  { at: "2026-01-05T10:00:00.000Z", arm: "A", action: "accept_all", surface: "banner", t: 1, experiment: "exp2" },
  // ids differ from `exp1` / `acme` only in case: distinct on every dialect (MySQL compares case-insensitively)
  { at: "2026-01-05T10:00:00.000Z", arm: "A", action: "accept_all", surface: "banner", t: 1, experiment: "EXP1" },
  { at: "2026-01-05T10:00:00.000Z", arm: "A", action: "accept_all", surface: "banner", t: 1, tenant: "ACME" },
  { at: "2026-01-05T10:00:00.000Z", arm: "A", action: "accept_all", surface: "banner", t: null, domain: "B.EXAMPLE" },
  { at: "2026-01-05T10:00:00.000Z", arm: null, action: "accept_all", surface: "banner", t: 1, experiment: null }
]

const seed = async (server: TestServer) => {
  let i = 0
  for (const save of fixture) {
    i++
    const givenAt = Date.parse(save.at)
    const experiment = save.experiment === undefined ? "exp1" : save.experiment
    await server.db().query(
      `INSERT INTO svc_consents (id, tenant_id, subject_id, act_key, act_digest, type, domain, given_at, created_at,
        experiment_id, experiment_arm, action, surface, time_to_decision_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        `cns_fixture_${i}`,
        save.tenant ?? "",
        `sub_fixture${String(i).padStart(4, "0")}`,
        `act_fixture_${i}`,
        "digest",
        save.type ?? "cookie_banner",
        save.domain ?? "a.example",
        givenAt,
        givenAt,
        experiment,
        experiment === null ? null : save.arm,
        save.action ?? null,
        save.surface ?? null,
        save.t ?? null
      ]
    )
  }
}

const counts = (entries: Record<string, number>, keys: ReadonlyArray<string>) => ({
  ...Object.fromEntries(keys.map((k) => [k, 0])),
  ...entries
})
const byAction = (entries: Record<string, number>) =>
  counts(entries, ["accept_all", "reject_all", "custom", "opt_out", "unknown"])
const bySurface = (entries: Record<string, number>) => counts(entries, ["banner", "dialog", "widget", "api", "unknown"])

describe.each(dialects)("GET /experiments/:id/summary [%s]", (dialect) => {
  const server = useServer(dialect, { apiKeys: [API_KEY] })
  const summary = (id: string, urlParams: { from?: string; to?: string; domain?: string } = {}) =>
    Effect.flatMap(server.clientWithKey(API_KEY), (client) => client.experiments.summary({ path: { id }, urlParams }))
  const get = (query: string) =>
    server.fetch(`/experiments/exp1/summary${query}`, { headers: { authorization: `Bearer ${API_KEY}` } })

  beforeAll(() => seed(server))

  it.effect("whole range: every arm, counts by action and surface, odd and even medians", () =>
    Effect.gen(function*() {
      const result = yield* summary("exp1")
      expect(result).toEqual({
        experimentId: "exp1",
        from: null,
        to: null,
        domain: null,
        arms: [
          {
            arm: "A",
            choices: 7,
            byAction: byAction({ accept_all: 4, reject_all: 1, custom: 1, opt_out: 1 }),
            bySurface: bySurface({ banner: 4, dialog: 1, widget: 1, api: 1 }),
            // 5, 100, 200, 301, 1000 (the save without a time is left out): odd count
            medianTimeToDecisionMs: 200
          },
          {
            arm: "B",
            choices: 4,
            byAction: byAction({ accept_all: 2, reject_all: 1, unknown: 1 }),
            bySurface: bySurface({ banner: 2, dialog: 1, unknown: 1 }),
            // 10, 20, 30, 40: even count, average of the two middle values
            medianTimeToDecisionMs: 25
          }
        ]
      })
    }))

  it.effect("bare dates cover whole UTC days, both ends included", () =>
    Effect.gen(function*() {
      const result = yield* summary("exp1", { from: "2026-01-01", to: "2026-01-31" })
      expect(result.from).toBe("2026-01-01T00:00:00.000Z")
      expect(result.to).toBe("2026-01-31T23:59:59.999Z")
      const a = result.arms.find((arm) => arm.arm === "A")!
      // 01-01T00:00, 01-05, 01-15, 01-20 and 01-31T23:59:59.999; not 12-31T23:59:59.999 nor 02-01T00:00
      expect(a.choices).toBe(5)
      expect(a.byAction).toEqual(byAction({ accept_all: 2, reject_all: 1, custom: 1, opt_out: 1 }))
      expect(a.medianTimeToDecisionMs).toBe(200) // 100, 200, 301
      expect(result.arms.find((arm) => arm.arm === "B")!.choices).toBe(4)
    }))

  it.effect("date-times bound to the millisecond; offsets are normalised to UTC", () =>
    Effect.gen(function*() {
      const result = yield* summary("exp1", { from: "2026-01-15T13:00:00+01:00", to: "2026-01-31T23:59:59Z" })
      expect(result.from).toBe("2026-01-15T12:00:00.000Z")
      expect(result.to).toBe("2026-01-31T23:59:59.000Z")
      expect(result.arms.map((arm) => [arm.arm, arm.choices, arm.medianTimeToDecisionMs])).toEqual([
        ["A", 2, 301] // 01-15T12:00 (inclusive) and 01-20 (no time); 01-31T23:59:59.999 is after `to`
      ])
    }))

  it.effect("an open-ended window keeps the other bound null", () =>
    Effect.gen(function*() {
      const result = yield* summary("exp1", { from: "2026-01-31" })
      expect(result.to).toBeNull()
      expect(result.arms).toEqual([
        {
          arm: "A",
          choices: 2,
          byAction: byAction({ custom: 1, accept_all: 1 }),
          bySurface: bySurface({ widget: 1, banner: 1 }),
          medianTimeToDecisionMs: 600 // 200, 1000
        }
      ])
    }))

  it.effect("domain narrows to one domain", () =>
    Effect.gen(function*() {
      const result = yield* summary("exp1", { domain: "b.example" })
      expect(result.domain).toBe("b.example")
      expect(result.arms).toEqual([
        {
          arm: "A",
          choices: 1,
          byAction: byAction({ opt_out: 1 }),
          bySurface: bySurface({ api: 1 }),
          medianTimeToDecisionMs: null
        },
        {
          arm: "B",
          choices: 1,
          byAction: byAction({ accept_all: 1 }),
          bySurface: bySurface({ unknown: 1 }),
          medianTimeToDecisionMs: 20
        }
      ])
    }))

  it.effect("an unknown experiment answers 200 with no arms", () =>
    Effect.gen(function*() {
      const result = yield* summary("no-such-experiment", { from: "2026-01-01" })
      expect(result).toEqual({
        experimentId: "no-such-experiment",
        from: "2026-01-01T00:00:00.000Z",
        to: null,
        domain: null,
        arms: []
      })
    }))

  it("refuses invalid dates and from after to with 400 INVALID_REQUEST", async () => {
    for (
      const query of [
        "?from=2026-02-30",
        "?to=2026-13-01",
        "?from=yesterday",
        "?from=1767225600000",
        "?to=2026-01-31T25:00:00Z",
        "?from=2026-02-01&to=2026-01-31",
        "?from=2026-01-31T12:00:00Z&to=2026-01-31T11:59:59Z",
        "?domain=",
        "?domain=%20"
      ]
    ) {
      const response = await get(query)
      expect(response.status, query).toBe(400)
      const body = await response.json()
      expect(body.cause, query).toEqual({ code: "INVALID_REQUEST" })
      expect(typeof body.message).toBe("string")
    }
  })

  it("accepts from equal to to on the same bare day", async () => {
    const response = await get("?from=2026-01-31&to=2026-01-31")
    expect(response.status).toBe(200)
    const body = await response.json()
    expect(body.arms.map((arm: { arm: string; choices: number }) => [arm.arm, arm.choices])).toEqual([["A", 1]])
  })
})

describe.each(dialects)("experiment summaries are tenant-scoped [%s]", (dialect) => {
  const server = useServer(dialect, { apiKeys: [API_KEY], tenantId: "acme" })
  beforeAll(() => seed(server))

  it.effect("a tenant instance reads only its own tenant's saves", () =>
    Effect.gen(function*() {
      const client = yield* server.clientWithKey(API_KEY)
      const result = yield* client.experiments.summary({ path: { id: "exp1" }, urlParams: {} })
      expect(result.arms).toEqual([
        {
          arm: "A",
          choices: 1,
          byAction: byAction({ accept_all: 1 }),
          bySurface: bySurface({ banner: 1 }),
          medianTimeToDecisionMs: 7
        },
        {
          arm: "C",
          choices: 1,
          byAction: byAction({ custom: 1 }),
          bySurface: bySurface({ widget: 1 }),
          medianTimeToDecisionMs: 9
        }
      ])
    }))
})
