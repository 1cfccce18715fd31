import { generateLogSignerKey, Subjects, SvcServices } from "@svc/backend"
import { createSvcClient, type ExportedConsentRecord, type SvcClient, unwrap, verifyConsentProof } from "@svc/client"
import { SubjectId } from "@svc/schema"
import { Effect, Either, ManagedRuntime } from "effect"
import { describe, expect, it } from "vitest"
import { newSubjectId } from "./support/consent-saves.js"
import { dialects } from "./support/dialects.js"
import { useServer } from "./support/server.js"
import { eventually } from "./support/webhook-receiver.js"

/*
 * `proofs=true` on both exports (docs/transparency-log.md, "Proofs in exports"): through
 * @svc/client and its offline check, the derived client and plain fetch, on every dialect.
 */

const API_KEY = "export-proofs-key-0123456789abcdef-01"
const { signerKey, verifierKey } = generateLogSignerKey("svc.test/export-proofs")
const DAY = "2025-04-07"
const at = (seconds: number) => new Date(Date.parse(`${DAY}T08:00:00Z`) + seconds * 1000)
/** More than one keyset page of the period export (25 records), and a tree whose size is no power of two. */
const RECORDS = 37

const treeSizeOf = (checkpoint: string) => Number(checkpoint.split("\n")[1])

const collect = async (client: SvcClient, proofs?: boolean) => {
  const records: Array<ExportedConsentRecord> = []
  for await (const item of client.consents.export({
    from: DAY,
    to: DAY,
    ...(proofs === undefined ? {} : { proofs })
  })) {
    records.push(unwrap(item))
  }
  return records
}

/** Checks a record's proof as a DPO would: with the verifier key only, and that it is this record's leaf. */
const expectVerified = (record: ExportedConsentRecord) => {
  expect(record.logProof, record.recordId).toBeTruthy()
  const checked = verifyConsentProof(record.logProof!, verifierKey)
  expect(checked, record.recordId).toMatchObject({ ok: true, leaf: { consentId: record.recordId } })
  return checked
}

describe.each(dialects)("exports with proofs=true [%s]", (dialect) => {
  const server = useServer(dialect, {
    apiKeys: [API_KEY],
    transparencyLog: { signingKey: signerKey, checkpointIntervalSeconds: 1 }
  })
  const admin = () => createSvcClient({ baseUrl: server.url(), apiKey: API_KEY, retry: false })
  const saveAt = async (seconds: number, extra: { subjectId?: string; externalSubjectId?: string } = {}) =>
    unwrap(
      await admin().subjects.create({
        type: "cookie_banner",
        domain: "example.com",
        subjectId: extra.subjectId ?? newSubjectId(),
        givenAt: at(seconds),
        preferences: { necessary: true, measurement: seconds % 2 === 0, marketing: false },
        ...(extra.externalSubjectId === undefined ? {} : { externalSubjectId: extra.externalSubjectId })
      })
    ).consentId
  /** Waits until a checkpoint covers `size` leaves; returns it. */
  const checkpointCovering = async (size: number) => {
    let note = ""
    await eventually(
      async () => {
        const result = await admin().log.checkpoint()
        note = result.ok ? result.data : ""
        return result.ok && treeSizeOf(note) >= size
      },
      20_000,
      `a checkpoint of ${size} leaves`
    )
    return note
  }
  const sequencer = {
    /** Holds the sequencer's lease for another owner: nothing new joins the log until resumed. */
    pause: () =>
      server.db().query("UPDATE svc_log_state SET lease_owner = ?, lease_until = ?", [
        "paused-by-test",
        Date.now() + 3_600_000
      ]),
    resume: () => server.db().query("UPDATE svc_log_state SET lease_until = ?", [0])
  }

  const subjectId = newSubjectId()
  const ids: Array<string> = []

  it("gives every record of /consents/export a proof the verifier key accepts, all against one checkpoint", async () => {
    for (let i = 0; i < RECORDS; i++) {
      ids.push(await saveAt(i, i < 3 ? { subjectId, externalSubjectId: "export-proofs-user" } : {}))
    }
    await checkpointCovering(RECORDS)

    const records = await collect(admin(), true)
    expect(records.map((r) => r.recordId)).toEqual(ids)
    const checkpoints = new Set(records.map((r) => r.logProof?.checkpoint))
    expect(checkpoints.size).toBe(1)
    const leaves = new Set(records.map((r) => expectVerified(r).ok && r.logProof!.leafIndex))
    expect(leaves.size).toBe(RECORDS)

    // The same proof as GET /log/proof/:consentId gives against the same checkpoint.
    const single = unwrap(await admin().log.proof(ids[5]!))
    expect(records[5]!.logProof).toEqual(single)

    // Without the parameter (or with false) the records carry no proof.
    for (const record of [...await collect(admin()), ...await collect(admin(), false)]) {
      expect(record.logProof).toBeUndefined()
      expect(Object.keys(record)).not.toContain("logProof")
    }
  })

  it("gives the records of /subjects/:id/export and /subjects/export?externalId= their proofs", async () => {
    const one = unwrap(await admin().subjects.export(subjectId, { proofs: true }))
    const byUser = unwrap(await admin().subjects.export({ externalId: "export-proofs-user" }, { proofs: true }))
    for (const exported of [one, byUser]) {
      const records = exported.subjects.flatMap((s) => s.records)
      expect(records.map((r) => r.recordId)).toEqual(ids.slice(0, 3))
      records.forEach(expectVerified)
      expect(new Set(records.map((r) => r.logProof?.checkpoint)).size).toBe(1)
    }
    const plain = unwrap(await admin().subjects.export(subjectId))
    expect(plain.subjects[0]!.records.every((r) => r.logProof === undefined)).toBe(true)

    // The derived client has the parameter as the contract declares it.
    const exported = await Effect.runPromise(
      Effect.flatMap(
        server.clientWithKey(API_KEY),
        (client) =>
          client.records.exportSubject({ path: { id: SubjectId.make(subjectId) }, urlParams: { proofs: true } })
      )
    )
    expect(exported.subjects[0]!.records.map((r) => r.logProof?.leafIndex)).toEqual(
      one.subjects[0]!.records.map((r) => r.logProof?.leafIndex)
    )
  })

  it("gives the same proofs through the library's Subjects.export(target, { proofs: true })", async () => {
    const runtime = ManagedRuntime.make(
      SvcServices.layer({
        database: server.db().database,
        apiKeys: [API_KEY],
        transparencyLog: { signingKey: signerKey, checkpointIntervalSeconds: 1 }
      })
    )
    try {
      const exported = await runtime.runPromise(
        Effect.flatMap(Subjects, (subjects) => subjects.export(subjectId, { proofs: true }))
      )
      const overHttp = unwrap(await admin().subjects.export(subjectId, { proofs: true }))
      const records = exported.subjects[0]!.records
      expect(records.map((r) => r.logProof)).toEqual(overHttp.subjects[0]!.records.map((r) => r.logProof))
      records.forEach((record) => expectVerified(record as ExportedConsentRecord))
      const plain = await runtime.runPromise(Effect.flatMap(Subjects, (subjects) => subjects.export(subjectId)))
      expect(plain.subjects[0]!.records.every((r) => !("logProof" in r))).toBe(true)
    } finally {
      await runtime.dispose()
    }
  })

  it("gives null for a record saved after the checkpoint, and its proof once a checkpoint covers it", async () => {
    await sequencer.pause()
    const late = await saveAt(RECORDS + 1)
    const records = await collect(admin(), true)
    expect(records.at(-1)!.recordId).toBe(late)
    expect(records.at(-1)!.logProof).toBeNull()
    records.slice(0, -1).forEach(expectVerified)
    const [subjectOfLate] = await server.db().query("SELECT subject_id FROM svc_consents WHERE id = ?", [late])
    const alone = unwrap(await admin().subjects.export(String(subjectOfLate!.subject_id), { proofs: true }))
    expect(alone.subjects[0]!.records[0]!.logProof).toBeNull()

    await sequencer.resume()
    await checkpointCovering(RECORDS + 1)
    const after = await collect(admin(), true)
    expect(after.map((r) => r.recordId)).toEqual([...ids, late])
    after.forEach(expectVerified)
  })

  it("keeps the proofs verifying after an erasure, in both exports", async () => {
    const before = await collect(admin(), true)
    const erasedLeaf = before[0]!.logProof!.leaf
    unwrap(await admin().subjects.erase(subjectId))

    // The erased id answers its anonymous proof; its records' proofs still verify, with the same leaf.
    const erased = unwrap(await admin().subjects.export(subjectId, { proofs: true }))
    const records = erased.subjects[0]!.records
    expect(erased.subjects[0]!.subjectId).not.toBe(subjectId)
    expect(records.map((r) => r.recordId)).toEqual(ids.slice(0, 3))
    records.forEach(expectVerified)
    expect(records[0]!.logProof!.leaf).toBe(erasedLeaf)

    const after = await collect(admin(), true)
    after.forEach(expectVerified)
    expect(after[0]!.principal.subjectId).not.toBe(subjectId)
    expect(after[0]!.logProof!.leaf).toBe(erasedLeaf)
  })

  it("answers a bad proofs parameter, or proofs with CSV, with 400 and its cause.code", async () => {
    const get = (path: string) => server.fetch(path, { headers: { authorization: `Bearer ${API_KEY}` } })
    const subject = ids[4]!
    const [row] = await server.db().query("SELECT subject_id FROM svc_consents WHERE id = ?", [subject])
    for (
      const path of [
        `/consents/export?from=${DAY}&to=${DAY}&proofs=yes`,
        `/consents/export?from=${DAY}&to=${DAY}&proofs=1`,
        `/subjects/${String(row!.subject_id)}/export?proofs=TRUE`,
        `/subjects/export?externalId=export-proofs-user&proofs=`
      ]
    ) {
      const answer = await get(path)
      expect(answer.status, path).toBe(400)
      expect((await answer.json()).cause.code, path).toBe("INVALID_REQUEST")
    }
    const csv = await get(`/consents/export?from=${DAY}&to=${DAY}&format=csv&proofs=true`)
    expect(csv.status).toBe(400)
    const body = await csv.json()
    expect(body.cause.code).toBe("INVALID_REQUEST")
    expect(body.message).toMatch(/CSV.*ndjson/)
    expect((await get(`/consents/export?from=${DAY}&to=${DAY}&format=csv&proofs=false`)).status).toBe(200)

    // The derived client gets the same error, decoded into its class.
    const refused = await Effect.runPromise(
      Effect.flatMap(
        server.clientWithKey(API_KEY),
        (client) => client.records.exportConsents({ urlParams: { from: DAY, to: DAY, format: "csv", proofs: true } })
      ).pipe(
        Effect.either
      )
    )
    expect(Either.isLeft(refused) && refused.left._tag).toBe("InvalidRequest")

    // @svc/client refuses a non-boolean before sending.
    const items = []
    for await (const item of admin().consents.export({ from: DAY, to: DAY, proofs: "yes" as never })) items.push(item)
    expect(items).toMatchObject([{ ok: false, error: { code: "INVALID_INPUT", issues: [{ path: ["proofs"] }] } }])
    const subjectExport = await admin().subjects.export(subject, { proofs: 1 as never })
    expect(subjectExport).toMatchObject({ ok: false, error: { code: "INVALID_INPUT" } })
  })
})

describe.each(dialects)("exports with proofs=true and no transparency log [%s]", (dialect) => {
  const server = useServer(dialect, { apiKeys: [API_KEY] })

  it("gives every record a null proof", async () => {
    const admin = createSvcClient({ baseUrl: server.url(), apiKey: API_KEY, retry: false })
    const subjectId = newSubjectId()
    unwrap(
      await admin.subjects.create({
        type: "cookie_banner",
        domain: "example.com",
        subjectId,
        givenAt: at(1),
        preferences: { necessary: true, measurement: true }
      })
    )
    const records = await collect(admin, true)
    expect(records).toHaveLength(1)
    expect(records[0]!.logProof).toBeNull()
    const exported = unwrap(await admin.subjects.export(subjectId, { proofs: true }))
    expect(exported.subjects[0]!.records[0]!.logProof).toBeNull()
  })
})
