import {
  Delivered,
  EventSinks,
  generateLogSignerKey,
  type OutgoingEvent,
  purgeOnce,
  type SvcOptions,
  verifyTransparencyLog
} from "@svc/backend"
import { Effect, Layer } from "effect"
import {
  leafHash,
  openNote,
  parseCheckpointText,
  parseVerifierKey,
  verifyConsistency,
  verifyInclusion
} from "@svc/schema/transparency"
import { beforeAll, describe, expect, it } from "vitest"
import { bearer, call, cookieSave, newSubjectId, save } from "./support/consent-saves.js"
import { dialects } from "./support/dialects.js"
import { useServer } from "./support/server.js"
import { buildTlogCheck, type TlogCheckInput } from "./support/tlog-check.js"
import { eventually } from "./support/webhook-receiver.js"

const API_KEY = "tlog-key-0123456789abcdef-0123456789"
const { signerKey, verifierKey } = generateLogSignerKey("svc.test/consent-log")
const verifier = parseVerifierKey(verifierKey)!

const checkpointOf = (note: string) => {
  const text = openNote(note, verifier)
  expect(text, "the checkpoint's signature verifies").toBeDefined()
  return parseCheckpointText(text!)!
}

/** Every `log.checkpoint` event delivered, as an auditor's endpoint would keep them. */
const delivered: Array<OutgoingEvent> = []
const CheckpointSink = Layer.succeed(EventSinks, [{
  id: "auditor",
  accepts: (type) => type === "log.checkpoint",
  deliver: (event: OutgoingEvent) => Effect.sync(() => (delivered.push(event), new Delivered({})))
}])

/** `GET /log/proof/:consentId`'s answer. */
interface InclusionProof {
  readonly leafIndex: number
  readonly treeSize: number
  readonly leaf: string
  readonly auditPath: ReadonlyArray<string>
  readonly checkpoint: string
}

/** Whether `proof`'s audit path leads from its leaf to the root its own signed checkpoint commits to. */
const provesInclusion = (proof: InclusionProof) =>
  verifyInclusion({
    index: proof.leafIndex,
    size: proof.treeSize,
    leaf: leafHash(Buffer.from(proof.leaf, "base64")),
    path: proof.auditPath.map((h) => Buffer.from(h, "base64")),
    root: checkpointOf(proof.checkpoint).root
  })

let tlogCheck: ReturnType<typeof buildTlogCheck>
beforeAll(() => {
  tlogCheck = buildTlogCheck()
})

describe.each(dialects)("the transparency log [%s]", (dialect) => {
  const transparencyLog = { signingKey: signerKey, checkpointIntervalSeconds: 1 }
  const server = useServer(dialect, {
    apiKeys: [API_KEY],
    transparencyLog,
    events: { sinks: CheckpointSink, delivery: { pollIntervalMs: 20 } }
  })
  const options = (): SvcOptions => ({ database: server.db().database, apiKeys: [API_KEY], transparencyLog })
  const independent: {
    checkpoints: Array<string>
    inclusion: Array<TlogCheckInput["inclusion"][number]>
    consistency: Array<TlogCheckInput["consistency"][number]>
  } = {
    checkpoints: [],
    inclusion: [],
    consistency: []
  }

  const latest = async () => {
    const response = await server.fetch("/log/checkpoint")
    return response.status === 200 ? await response.text() : undefined
  }
  /** Waits until a signed checkpoint covers `size` leaves. */
  const checkpointCovering = async (size: number) => {
    let note: string | undefined
    await eventually(
      async () => {
        note = await latest()
        return note !== undefined && checkpointOf(note).size >= size
      },
      15_000,
      `a checkpoint of ${size} leaves`
    )
    return note!
  }
  const saveSome = async (count: number) => {
    const ids: Array<string> = []
    for (let i = 0; i < count; i++) {
      const answer = await save(server, cookieSave({ givenAt: Date.now() - 1000 + i }), {
        "user-agent": "TlogBrowser/1",
        "x-forwarded-for": "198.51.100.7"
      })
      expect(answer.status).toBe(200)
      ids.push(answer.body.consentId)
    }
    return ids
  }
  const proofOf = async (consentId: string) => {
    const answer = await call(server, "GET", `/log/proof/${consentId}`, undefined, bearer(API_KEY))
    expect(answer.status).toBe(200)
    return answer.body as InclusionProof
  }
  const firstIds: Array<string> = []

  it("publishes its verifier key and a signed C2SP checkpoint as text/plain", async () => {
    const key = await server.fetch("/log/key")
    expect(key.status).toBe(200)
    expect(await key.text()).toBe(verifierKey)
    firstIds.push(...await saveSome(5))
    const note = await checkpointCovering(5)
    const response = await server.fetch("/log/checkpoint")
    expect(response.headers.get("content-type")).toMatch(/^text\/plain/)
    expect(note).toMatch(
      /^svc\.test\/consent-log\n\d+\n[A-Za-z0-9+/]{43}=\n\n\u2014 svc\.test\/consent-log [A-Za-z0-9+/=]+\n$/
    )
    independent.checkpoints.push(note)
  })

  it("answers each record's inclusion proof against a checkpoint of its tree size", async () => {
    for (const id of firstIds) {
      const proof = await proofOf(id)
      const checkpoint = checkpointOf(proof.checkpoint)
      expect(checkpoint.size).toBe(proof.treeSize)
      const leaf = Buffer.from(proof.leaf, "base64")
      expect(JSON.parse(leaf.toString("utf8"))).toMatchObject({ v: 1, consentId: id, type: "cookie_banner" })
      expect(provesInclusion(proof)).toBe(true)
      independent.inclusion.push({
        index: proof.leafIndex,
        size: proof.treeSize,
        leaf: proof.leaf,
        path: proof.auditPath,
        root: checkpoint.root.toString("base64")
      })
    }
  })

  it("keeps personal data out of the leaf, behind a salted commitment", async () => {
    const proof = await proofOf(firstIds[0]!)
    const text = Buffer.from(proof.leaf, "base64").toString("utf8")
    expect(text).not.toContain("198.51.100")
    expect(text).not.toContain("TlogBrowser")
    const [row] = await server.db().query("SELECT subject_id, log_commitment FROM svc_consents WHERE id = ?", [
      firstIds[0]
    ])
    expect(text).not.toContain(String(row!.subject_id))
    expect(JSON.parse(text).personalData).toBe(row!.log_commitment)
  })

  it("proves each checkpoint consistent with the later ones", async () => {
    const before = checkpointOf(independent.checkpoints[0]!)
    await saveSome(6)
    const note = await checkpointCovering(before.size + 6)
    independent.checkpoints.push(note)
    const after = checkpointOf(note)
    for (const from of [0, 1, 2, 3, before.size]) {
      const answer = await call(server, "GET", `/log/consistency?from=${from}&to=${after.size}`)
      expect(answer.status).toBe(200)
      expect(answer.body.from).toBe(from)
      if (from !== before.size) continue
      const proof = answer.body.proof as Array<string>
      expect(
        verifyConsistency({
          from,
          to: after.size,
          fromRoot: before.root,
          toRoot: after.root,
          proof: proof.map((h) => Buffer.from(h, "base64"))
        })
      ).toBe(true)
      independent.consistency.push({
        from,
        to: after.size,
        fromRoot: before.root.toString("base64"),
        toRoot: after.root.toString("base64"),
        proof
      })
    }
  })

  it("is accepted by Go's sumdb/tlog and sumdb/note (an independent implementation)", (context) => {
    if (tlogCheck === undefined) {
      // CI installs Debian's golang-go and golang-golang-x-mod-dev and sets SVC_TEST_GO: there it must run.
      if (process.env.SVC_TEST_GO !== undefined)
        throw new Error("SVC_TEST_GO is set but no Go toolchain with golang.org/x/mod")
      return context.skip("needs Go with golang.org/x/mod (Debian: golang-go golang-golang-x-mod-dev)")
    }
    expect(independent.inclusion.length).toBeGreaterThanOrEqual(5)
    expect(independent.consistency.length).toBe(1)
    const accepted = tlogCheck({ verifierKey, ...independent })
    expect(accepted.output).toBe("ok\n")
    // and it refuses a proof with one hash changed, so the acceptance above means something
    const broken = independent.inclusion[1]!
    const path = [...broken.path]
    path[0] = Buffer.alloc(32, 7).toString("base64")
    const refused = tlogCheck({ verifierKey, checkpoints: [], inclusion: [{ ...broken, path }], consistency: [] })
    expect(refused.ok).toBe(false)
  })

  it("sends each new checkpoint as a log.checkpoint event", async () => {
    const note = independent.checkpoints.at(-1)!
    const { root, size } = checkpointOf(note)
    await eventually(
      () => delivered.some((event) => event.body.includes(JSON.stringify(note).slice(1, -1))),
      10_000,
      "the checkpoint's event"
    )
    const event = delivered.find((e) => e.body.includes(JSON.stringify(note).slice(1, -1)))!
    expect(event.type).toBe("log.checkpoint")
    expect(JSON.parse(event.body)).toMatchObject({
      type: "log.checkpoint",
      data: { treeSize: size, rootHash: root.toString("base64"), checkpoint: note }
    })
  })

  it("answers bad requests with the spec's errors", async () => {
    expect((await call(server, "GET", `/log/proof/${firstIds[0]}`)).status).toBe(401)
    const unknown = await call(server, "GET", "/log/proof/cns_nope", undefined, bearer(API_KEY))
    expect(unknown.status).toBe(404)
    expect(unknown.body.cause.code).toBe("NOT_FOUND")
    const badId = await call(server, "GET", "/log/proof/not-a-consent", undefined, bearer(API_KEY))
    expect(badId.status).toBe(400)
    expect(badId.body.cause.code).toBe("INVALID_REQUEST")
    for (const query of ["from=3&to=2", "from=0&to=999999", "from=x&to=2", "to=2", "from=-1&to=2"]) {
      const answer = await call(server, "GET", `/log/consistency?${query}`)
      expect(answer.status, query).toBe(400)
      expect(answer.body.cause.code, query).toBe("INVALID_REQUEST")
    }
  })

  it("svc verify passes after an erasure and names the record edited or deleted in SQL", async () => {
    const subjectId = newSubjectId()
    const erased = await save(server, cookieSave({ subjectId }), { "user-agent": "EraseMe/1" })
    expect(erased.status).toBe(200)
    const [edited, deleted] = await saveSome(2)
    await checkpointCovering(14)
    expect((await verifyTransparencyLog(options())).problems).toEqual([])

    expect((await call(server, "DELETE", `/subjects/${subjectId}`, undefined, bearer(API_KEY))).status).toBe(200)
    const [anonymous] = await server.db().query("SELECT subject_id, log_salt FROM svc_consents WHERE id = ?", [
      erased.body.consentId
    ])
    expect(anonymous).toMatchObject({ log_salt: null })
    const afterErasure = await verifyTransparencyLog(options())
    expect(afterErasure.problems).toEqual([])
    expect(afterErasure.leaves).toBeGreaterThanOrEqual(14)
    // Retention a year and more later: IPs and user agents cleared, records retired, salts gone.
    const later = Date.now() + 400 * 86_400_000
    await purgeOnce({ ...options(), retention: { ipAddressDays: 1, userAgentDays: 1, recordDays: 365 } }, {
      now: later
    })
    const [retired] = await server.db().query(
      "SELECT subject_id, ip_address, log_salt FROM svc_consents WHERE id = ?",
      [
        edited
      ]
    )
    expect(retired).toMatchObject({ subject_id: "retired", ip_address: null, log_salt: null })
    expect((await verifyTransparencyLog(options())).problems).toEqual([])
    // The erased record's proof still verifies.
    const proof = await proofOf(erased.body.consentId)
    expect(provesInclusion(proof)).toBe(true)

    const [stored] = await server.db().query("SELECT preferences FROM svc_consents WHERE id = ?", [edited])
    const preferences = JSON.parse(String(stored!.preferences)) as Record<string, boolean>
    const flipped = { ...preferences, marketing: !preferences.marketing }
    await server.db().query("UPDATE svc_consents SET preferences = ? WHERE id = ?", [JSON.stringify(flipped), edited])
    await server.db().query("DELETE FROM svc_consents WHERE id = ?", [deleted])
    const tampered = await verifyTransparencyLog(options())
    const named = tampered.problems.flatMap((p) => p.consentId === undefined ? [] : [p.consentId])
    expect(named).toContain(edited)
    expect(named).toContain(deleted)
    expect(tampered.problems.find((p) => p.consentId === edited)?.message).toMatch(/edited/)
    expect(tampered.problems.find((p) => p.consentId === deleted)?.message).toMatch(/no row/)
  })

  it("sequences a round of many acts (written in several statements) with one index each", async () => {
    const before = checkpointOf((await latest())!).size
    const ids: Array<string> = []
    for (let round = 0; round < 15; round++) {
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) => save(server, cookieSave({ givenAt: Date.now() - 1000 + i })))
      )
      for (const answer of answers) {
        expect(answer.status).toBe(200)
        ids.push(answer.body.consentId)
      }
    }
    await checkpointCovering(before + ids.length)
    const indices = new Set<number>()
    for (const id of ids) {
      const proof = await proofOf(id)
      indices.add(proof.leafIndex)
      expect(provesInclusion(proof)).toBe(true)
    }
    expect(indices.size).toBe(ids.length)
    expect(Math.min(...indices)).toBeGreaterThanOrEqual(before)
  })

  it("signs checkpoints while saves keep arriving, not only once they pause", async () => {
    const [first] = await saveSome(1)
    // Four visitors saving one after another for up to 12 s: the sequencer always finds new acts.
    let streaming = true
    let ended = false
    const visitor = async () => {
      const until = Date.now() + 12_000
      while (streaming && Date.now() < until) expect((await save(server, cookieSave())).status).toBe(200)
    }
    const stream = Promise.all([visitor(), visitor(), visitor(), visitor()]).finally(() => (ended = true))
    try {
      await eventually(
        async () => (await call(server, "GET", `/log/proof/${first}`, undefined, bearer(API_KEY))).status === 200,
        15_000,
        "a proof of the first save"
      )
      expect(ended, "its checkpoint came while the saves went on").toBe(false)
    } finally {
      streaming = false
      await stream
    }
    expect(provesInclusion(await proofOf(first!))).toBe(true)
  })
})
