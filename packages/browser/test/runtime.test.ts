import { describe, expect, it } from "vitest"
import { backendFromScript, mergeConfig, resolveBackendURL } from "../src/runtime/config.js"
import { randomToken, subjectId, SUBJECT_PATTERN } from "../src/runtime/ids.js"
import { initURL } from "../src/runtime/init-request.js"
import { deriveState, shouldPrompt } from "../src/runtime/policy.js"
import { createReplayQueue } from "../src/runtime/replay-queue.js"
import { consentCookie, createRuntime, type RuntimeEnv } from "../src/runtime/runtime.js"
import { buildSaveBody, type SaveBody } from "../src/runtime/save-request.js"
import { KEYS, memoryStore } from "../src/runtime/storage.js"
import type { InitResponse, PolicyPack } from "../src/runtime/types.js"
import { translator } from "../src/ui/strings.js"

const random = (bytes: Uint8Array): Uint8Array => {
  for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 37 + 11) & 255
  return bytes
}

const policy = (over: Partial<PolicyPack> = {}): PolicyPack => ({
  id: "eu",
  match: { countries: ["DE"] },
  model: "opt-in",
  categories: ["measurement", "marketing"],
  fingerprint: "fp-1",
  ...over
})
const matched = (p: PolicyPack, over: Partial<InitResponse> = {}): InitResponse => ({
  hosting: "self-hosted",
  policyResolution: { status: "matched", policyId: p.id, fingerprint: p.fingerprint, model: p.model },
  policy: p,
  translations: {},
  gpc: false,
  policySnapshotToken: "tok-1",
  ...over
})

const json = (status: number, body: unknown): Response =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } })

describe("config", () => {
  it("derives the backend from the script address minus the file name", () => {
    expect(backendFromScript("https://cmp.example.com/consent/svc.js?x=1")).toBe("https://cmp.example.com/consent")
    expect(backendFromScript("https://cmp.example.com/svc.iab.js")).toBe("https://cmp.example.com")
    expect(backendFromScript(undefined)).toBeUndefined()
  })
  it("lets the page override the embedded defaults, merging nested objects", () => {
    const config = mergeConfig(
      { country: "DE", translations: { "banner.title": "A", "banner.acceptAll": "B" }, theme: { accent: "red" } },
      { translations: { "banner.title": "C" } },
      { country: "FR", region: undefined }
    )
    expect(config.country).toBe("FR")
    expect(config.translations).toEqual({ "banner.title": "C", "banner.acceptAll": "B" })
    expect(config.theme).toEqual({ accent: "red" })
  })
  it("prefers page backendURL, then the embedded one, then the script address; never a trailing slash", () => {
    expect(resolveBackendURL({}, { backendURL: "https://a.test/x/" }, "https://b.test/svc.js")).toBe("https://a.test/x")
    expect(resolveBackendURL({ backendURL: "https://p.test" }, { backendURL: "https://a.test" }, null)).toBe(
      "https://p.test"
    )
    expect(resolveBackendURL({}, undefined, "https://b.test/api/svc.js")).toBe("https://b.test/api")
  })
})

describe("ids", () => {
  it("makes sub_ ids of 32 random characters and keeps them", () => {
    const store = memoryStore()
    const id = subjectId(store, (b) => crypto.getRandomValues(b))
    expect(id).toMatch(SUBJECT_PATTERN)
    expect(id.length).toBe(36)
    expect(subjectId(store, random)).toBe(id)
    expect(randomToken(64, random)).toMatch(/^[A-Za-z0-9_-]{64}$/)
  })
})

describe("initURL", () => {
  it("sends the version, contract 1, overrides, experiment and journey in the query", () => {
    const url = new URL(
      initURL("https://b.test/api", { country: "US", region: "CA", experiment: { id: "hero", arm: "b c" } }, {
        version: "0.1.0",
        gpc: true,
        journey: { id: "jrn_1", scope: "site", stored: "0" }
      })
    )
    expect(url.pathname).toBe("/api/init")
    expect(Object.fromEntries(url.searchParams)).toEqual({
      v: "0.1.0",
      contract: "1",
      country: "US",
      region: "CA",
      gpc: "1",
      experiment: "hero=b%20c",
      journey: "jrn_1",
      journeyScope: "site",
      stored: "0"
    })
  })
})

describe("deriveState and shouldPrompt", () => {
  const now = 1_700_000_000_000
  it("asks under opt-in with nothing stored, with every optional category denied", () => {
    const init = matched(policy())
    const state = deriveState(init, undefined, false, now)
    expect(state.status).toBe("pending")
    expect(state.preferences).toEqual({
      necessary: true,
      measurement: false,
      marketing: false,
      functionality: false,
      experience: false
    })
    expect(shouldPrompt(init, state)).toBe(true)
  })
  it("keeps a stored choice for the same fingerprint and asks again when the fingerprint changed or it expired", () => {
    const stored = {
      v: 1 as const,
      policyId: "eu",
      fingerprint: "fp-1",
      preferences: {
        necessary: true as const,
        measurement: true,
        marketing: false,
        functionality: false,
        experience: false
      },
      givenAt: now - 1000,
      action: "custom" as const,
      expiresAt: now + 1000
    }
    expect(deriveState(matched(policy()), stored, false, now).status).toBe("given")
    expect(deriveState(matched(policy({ fingerprint: "fp-2" })), stored, false, now).status).toBe("pending")
    expect(deriveState(matched(policy()), { ...stored, expiresAt: now - 1 }, false, now).status).toBe("pending")
    // Hydration before /init answers uses the stored choice as saved.
    expect(deriveState(null, stored, false, now).preferences.measurement).toBe(true)
  })
  it("grants under opt-out, and a GPC signal denies gpcDenies (marketing by default) without asking", () => {
    const init = matched(policy({ model: "opt-out" }))
    expect(deriveState(init, undefined, false, now).preferences.marketing).toBe(true)
    const gpc = deriveState(init, undefined, true, now)
    expect(gpc.preferences.marketing).toBe(false)
    expect(gpc.preferences.measurement).toBe(true)
    expect(shouldPrompt(init, gpc)).toBe(false)
    const custom = deriveState(matched(policy({ model: "opt-out", gpcDenies: ["measurement"] })), undefined, true, now)
    expect(custom.preferences).toMatchObject({ measurement: false, marketing: true })
  })
  it("never asks for model none, an unmatched resolution or prompt none", () => {
    const none = matched(policy({ model: "none" }))
    expect(shouldPrompt(none, deriveState(none, undefined, false, now))).toBe(false)
    const unmatched: InitResponse = { policyResolution: { status: "no-match" }, policy: null }
    const s = deriveState(unmatched, undefined, false, now)
    expect(s.status).toBe("unresolved")
    expect(shouldPrompt(unmatched, s)).toBe(false)
    const silent = matched(policy({ prompt: "none" }))
    expect(shouldPrompt(silent, deriveState(silent, undefined, false, now))).toBe(false)
  })
})

describe("buildSaveBody", () => {
  it("carries the click time, a receipt per offered category, vendors, token, journey and attribution", () => {
    const body = buildSaveBody({
      domain: "shop.test",
      subjectId: "sub_abcdefgh12345678",
      givenAt: 1000,
      preferences: { necessary: true, measurement: true, marketing: false, functionality: false, experience: false },
      offered: ["measurement", "marketing"],
      vendors: { ga: true },
      policySnapshotToken: "tok",
      journey: { id: "jrn_1", stored: "0" },
      experiment: { id: "hero", arm: "b" },
      action: "custom",
      surface: "dialog",
      shownAt: 400,
      identity: undefined
    })
    expect(body).toEqual({
      type: "cookie_banner",
      domain: "shop.test",
      subjectId: "sub_abcdefgh12345678",
      givenAt: 1000,
      preferences: { necessary: true, measurement: true, marketing: false, functionality: false, experience: false },
      receipts: { measurement: { value: true, confirmedAt: 1000 }, marketing: { value: false, confirmedAt: 1000 } },
      vendorChoice: { grants: { ga: true }, confirmedAt: 1000 },
      policySnapshotToken: "tok",
      journey: { id: "jrn_1", stored: "0" },
      experiment: { id: "hero", arm: "b" },
      action: "custom",
      surface: "dialog",
      timeToDecisionMs: 600
    })
  })
})

describe("replay queue", () => {
  const body = (givenAt: number): SaveBody => ({
    type: "cookie_banner",
    domain: "d.test",
    subjectId: "sub_abcdefgh12345678",
    givenAt,
    preferences: { necessary: true, measurement: true, marketing: true, functionality: true, experience: true },
    receipts: {},
    policySnapshotToken: "tok-original",
    action: "accept_all",
    surface: "banner"
  })

  it("keeps a save that failed on the network or with 5xx/408/429 and replays it unchanged", async () => {
    const store = memoryStore()
    const sent: Array<SaveBody> = []
    let answer: () => Promise<Response> = () => Promise.reject(new TypeError("offline"))
    const fetchFn = async (_url: string, init?: RequestInit) => {
      sent.push(JSON.parse(String(init?.body)))
      return answer()
    }
    let now = 10_000
    const queue = createReplayQueue(store, fetchFn, () => now)
    expect((await queue.submit("https://b.test/subjects", body(5000))).kind).toBe("retry")
    for (const status of [503, 408, 429]) {
      answer = async () => json(status, {})
      await queue.flush()
      expect(queue.pending()).toHaveLength(1)
    }
    now += 86_400_000
    answer = async () => json(200, { consentId: "cns_1" })
    await queue.flush()
    expect(queue.pending()).toHaveLength(0)
    expect(sent).toHaveLength(5)
    for (const b of sent) {
      expect(b.givenAt).toBe(5000)
      expect(b.policySnapshotToken).toBe("tok-original")
    }
  })

  it("drops a save the backend refused with a 4xx", async () => {
    const store = memoryStore()
    const queue = createReplayQueue(
      store,
      async () => json(409, { message: "x", cause: { code: "POLICY_SNAPSHOT_EXPIRED" } }),
      () => 1
    )
    const d = await queue.submit("u", body(1))
    expect(d).toMatchObject({ kind: "refused", status: 409, code: "POLICY_SNAPSHOT_EXPIRED" })
    expect(queue.pending()).toHaveLength(0)
  })

  it("gives up on saves older than seven days", async () => {
    const store = memoryStore()
    let now = 1_000
    let calls = 0
    const queue = createReplayQueue(store, async () => {
      calls++
      throw new TypeError("offline")
    }, () => now)
    await queue.submit("u", body(1_000))
    now += 7 * 86_400_000 + 1
    await queue.flush()
    expect(queue.pending()).toHaveLength(0)
    expect(calls).toBe(1)
  })
})

describe("runtime", () => {
  const setup = (init: InitResponse, over: Partial<RuntimeEnv> = {}) => {
    const calls: Array<{ url: string; method: string; body: any }> = []
    let saveAnswer: () => Promise<Response> = async () => json(200, { consentId: "cns_1" })
    const store = memoryStore()
    let now = 1_700_000_000_000
    const env: RuntimeEnv = {
      store,
      session: memoryStore(),
      fetch: async (url, req) => {
        calls.push({ url, method: req?.method ?? "GET", body: req?.body ? JSON.parse(String(req.body)) : undefined })
        if (url.includes("/init")) return json(200, init)
        if (req?.method === "PATCH") return json(404, { message: "no", cause: { code: "NOT_FOUND" } })
        return saveAnswer()
      },
      now: () => now,
      random,
      domain: "site.test",
      gpc: false,
      setCookie: () => {},
      onOnline: () => {},
      ...over
    }
    const runtime = createRuntime(env, { country: "DE" }, "https://b.test", "0.1.0")
    return {
      runtime,
      calls,
      store,
      tick: (ms: number) => (now += ms),
      failSaves: (f: () => Promise<Response>) => (saveAnswer = f)
    }
  }

  it("resolves, saves accept-all with receipts and token, and notifies subscribers", async () => {
    const t = setup(matched(policy()))
    const events: Array<string> = []
    t.runtime.api.subscribe((_s, e) => events.push(e))
    await t.runtime.start()
    expect(t.runtime.api.consent.status).toBe("pending")
    expect(t.runtime.api.hosting).toBe("self-hosted")
    const init = new URL(t.calls[0]!.url)
    expect(init.searchParams.get("contract")).toBe("1")
    expect(init.searchParams.get("country")).toBe("DE")
    t.tick(1234)
    const outcome = await t.runtime.api.acceptAll({ surface: "banner" })
    expect(outcome.ok).toBe(true)
    const save = t.calls.find((c) => c.method === "POST")!
    expect(save.url).toBe("https://b.test/subjects")
    expect(save.body).toMatchObject({
      type: "cookie_banner",
      domain: "site.test",
      givenAt: 1_700_000_001_234,
      action: "accept_all",
      surface: "banner",
      policySnapshotToken: "tok-1",
      receipts: { measurement: { value: true }, marketing: { value: true } }
    })
    expect(save.body.subjectId).toMatch(SUBJECT_PATTERN)
    expect(t.runtime.api.has("marketing")).toBe(true)
    expect(events).toEqual(["subscribe", "resolve", "save"])
    expect(JSON.parse(t.store.getItem(KEYS.consent)!).fingerprint).toBe("fp-1")
  })

  it("never saves on hydration, GPC alone or dismissal", async () => {
    const t = setup(matched(policy({ model: "opt-out" }), { gpc: true }), { gpc: true })
    await t.runtime.start()
    expect(t.runtime.api.consent.preferences.marketing).toBe(false)
    t.runtime.ctx.dismiss()
    expect(t.calls.filter((c) => c.method !== "GET")).toHaveLength(0)
    expect(new URL(t.calls[0]!.url).searchParams.get("gpc")).toBe("1")
  })

  it("keeps GPC-denied categories off even on accept all", async () => {
    const t = setup(matched(policy({ model: "opt-out" }), { gpc: true }), { gpc: true })
    await t.runtime.start()
    await t.runtime.api.acceptAll()
    const save = t.calls.find((c) => c.method === "POST")!
    expect(save.body.preferences).toMatchObject({ measurement: true, marketing: false })
  })

  it("queues a save that could not be delivered and reports it as queued", async () => {
    const t = setup(matched(policy()))
    await t.runtime.start()
    t.failSaves(() => Promise.reject(new TypeError("offline")))
    expect(await t.runtime.api.rejectAll()).toEqual({ ok: false, queued: true })
    expect(JSON.parse(t.store.getItem(KEYS.queue)!)).toHaveLength(1)
    t.failSaves(async () => json(201, { consentId: "cns_2" }))
    await t.runtime.api.flush()
    expect(t.store.getItem(KEYS.queue)).toBeNull()
  })

  it("tries an undelivered save again after a growing pause while the page stays open", async () => {
    const timers: Array<{ fn: () => void; ms: number }> = []
    const t = setup(matched(policy()), { later: (fn, ms) => void timers.push({ fn, ms }) })
    await t.runtime.start()
    t.failSaves(async () => json(503, {}))
    expect(await t.runtime.api.acceptAll()).toEqual({ ok: false, queued: true })
    expect(timers.map((x) => x.ms)).toEqual([30_000])
    timers.shift()!.fn()
    await new Promise((r) => setTimeout(r, 0))
    expect(timers.map((x) => x.ms)).toEqual([60_000])
    t.failSaves(async () => json(201, { consentId: "cns_9" }))
    timers.shift()!.fn()
    await new Promise((r) => setTimeout(r, 0))
    expect(timers).toHaveLength(0)
    expect(t.store.getItem(KEYS.queue)).toBeNull()
    expect(t.calls.filter((c) => c.method === "POST").map((c) => c.body.givenAt)).toEqual(
      Array(3).fill(1_700_000_000_000)
    )
  })

  it("links an identity later when the subject does not exist yet", async () => {
    const t = setup(matched(policy()))
    await t.runtime.start()
    const linked = await t.runtime.api.identify("user-1", { identityToken: "jwt" })
    expect(linked).toMatchObject({ ok: false, pending: true })
    await t.runtime.api.acceptAll()
    const save = t.calls.find((c) => c.method === "POST")!
    expect(save.body).toMatchObject({ externalSubjectId: "user-1", identityToken: "jwt" })
    expect(t.store.getItem(KEYS.identity)).toBeNull()
  })
})

describe("runtime: what the page's storage holds under svc's keys", () => {
  // The page's other scripts share localStorage: a key may hold null, an older shape or a foreign value.
  const foreign = ["null", "42", '"text"', "[]", "{}", '{"v":1,"expiresAt":9e15}', "{not json"]
  const start = async (store: ReturnType<typeof memoryStore>) => {
    const posts: Array<any> = []
    const env: RuntimeEnv = {
      store,
      session: memoryStore(),
      fetch: async (url, req) => {
        if (url.includes("/init")) return json(200, matched(policy()))
        posts.push(JSON.parse(String(req?.body)))
        return json(201, { consentId: "cns_1" })
      },
      now: () => 1_700_000_000_000,
      random,
      domain: "site.test",
      gpc: false,
      setCookie: () => {},
      onOnline: () => {}
    }
    const runtime = createRuntime(env, {}, "https://b.test", "0.1.0")
    const before = runtime.api.consent.status
    await runtime.start()
    return { runtime, posts, before }
  }

  it("reads a null or foreign value as nothing stored, and saves over it", async () => {
    for (const raw of foreign) {
      const store = memoryStore()
      for (const key of [KEYS.consent, KEYS.identity, KEYS.queue]) store.setItem(key, raw)
      const { runtime, posts, before } = await start(store)
      expect(before, raw).toBe("loading")
      expect(runtime.api.consent.status, raw).toBe("pending")
      expect(runtime.api.has("marketing"), raw).toBe(false)
      expect(await runtime.api.acceptAll(), raw).toMatchObject({ ok: true })
      expect(posts, raw).toHaveLength(1)
      expect(posts[0].externalSubjectId, raw).toBeUndefined()
      expect(JSON.parse(store.getItem(KEYS.consent)!).action, raw).toBe("accept_all")
    }
  })

  it("still hydrates the choice it stored itself, and links a pending identity it stored", async () => {
    const store = memoryStore()
    const first = await start(store)
    await first.runtime.api.identify("user-1")
    await first.runtime.api.rejectAll()
    const second = await start(store)
    expect(second.before).toBe("given")
    expect(second.runtime.api.consent.action).toBe("reject_all")
    store.setItem(KEYS.identity, JSON.stringify({ externalId: "user-2" }))
    await second.runtime.api.acceptAll()
    expect(second.posts.at(-1).externalSubjectId).toBe("user-2")
  })

  it("replays the queued saves it wrote and leaves out foreign entries", async () => {
    const store = memoryStore()
    const queue = createReplayQueue(store, async () => json(503, {}), () => 1_000)
    await queue.submit(
      "https://b.test/subjects",
      buildSaveBody({
        domain: "d.test",
        subjectId: "sub_abcdefgh12345678",
        givenAt: 1_000,
        preferences: { necessary: true, measurement: true, marketing: false, functionality: false, experience: false },
        offered: [],
        vendors: {},
        policySnapshotToken: undefined,
        journey: undefined,
        experiment: undefined,
        action: "custom",
        surface: "banner",
        shownAt: undefined,
        identity: undefined
      })
    )
    const [entry] = JSON.parse(store.getItem(KEYS.queue)!)
    store.setItem(KEYS.queue, JSON.stringify([null, 5, { key: "x" }, { ...entry, body: null }, entry]))
    const sent: Array<string> = []
    const replay = createReplayQueue(store, async (url) => {
      sent.push(url)
      return json(201, {})
    }, () => 2_000)
    expect(replay.pending()).toEqual([entry])
    await replay.flush()
    expect(sent).toEqual(["https://b.test/subjects"])
    expect(store.getItem(KEYS.queue)).toBeNull()
  })
})

describe("consentCookie", () => {
  it("spells each category with its own code", () => {
    const cookie = consentCookie({
      v: 1,
      policyId: "eu",
      fingerprint: "fp-1",
      preferences: { necessary: true, measurement: true, marketing: false, functionality: true, experience: false },
      givenAt: 1_700_000_000_999,
      action: "custom",
      expiresAt: 0
    })
    expect(cookie).toBe("1.fp-1.ms1.mk0.fn1.ex0.1700000000")
  })
})

describe("translator", () => {
  it("reads page overrides, then nested backend translations, then English", () => {
    const t = translator({ translations: { "banner.title": "Page" } }, { banner: { acceptAll: "Alle akzeptieren" } })
    expect(t("banner.title")).toBe("Page")
    expect(t("banner.acceptAll")).toBe("Alle akzeptieren")
    expect(t("banner.rejectAll")).toBe("Reject all")
    expect(t("iab.vendors", { count: 3 })).toBe("Partners (3)")
  })
})
