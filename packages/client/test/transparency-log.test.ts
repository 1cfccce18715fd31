import { generateSignerKey } from "@svc/schema/transparency"
import { type RunningServer, startServer } from "@svc/server"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  createSvcClient,
  type SvcClient,
  unwrap,
  verifyCheckpointConsistency,
  verifyConsentProof
} from "../src/index.js"
import { createMockSvcClient, ok } from "../src/testing.js"

/*
 * The transparency log through @svc/client: the live methods against a real backend, the offline
 * checks on what they return (and on tampered copies), and the mock.
 */

const apiKey = "log-test-key-0123456789abcdef-0123456"
const { signerKey, verifierKey } = generateSignerKey("client.test/log")
const other = generateSignerKey("client.test/log")

let server: RunningServer
let admin: SvcClient

beforeAll(async () => {
  server = await startServer(
    {
      database: { dialect: "sqlite", url: ":memory:" },
      apiKeys: [apiKey],
      observability: { requests: "none" },
      transparencyLog: { signingKey: signerKey, checkpointIntervalSeconds: 1 }
    },
    { port: 0, host: "127.0.0.1" }
  )
  admin = createSvcClient({ baseUrl: server.url, apiKey, retry: false })
})
afterAll(() => server?.close())

const saveOne = async () =>
  unwrap(
    await admin.subjects.create({
      type: "cookie_banner",
      domain: "example.com",
      subjectId: `sub_${crypto.randomUUID().replaceAll("-", "")}`,
      givenAt: new Date(),
      preferences: { necessary: true, measurement: true, marketing: false, functionality: true, experience: false }
    })
  ).consentId

const proofOf = async (consentId: string) => {
  const deadline = Date.now() + 15_000
  for (;;) {
    const result = await admin.log.proof(consentId)
    if (result.ok) return result.data
    if (Date.now() > deadline) throw new Error(`no proof of ${consentId}: ${JSON.stringify(result)}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

describe("@svc/client and the transparency log", () => {
  it("fetches a record's proof and checks it offline against the verifier key", async () => {
    expect(unwrap(await admin.log.key())).toBe(verifierKey)
    const consentId = await saveOne()
    const proof = await proofOf(consentId)
    const checked = verifyConsentProof(proof, verifierKey)
    expect(checked).toMatchObject({ ok: true, leaf: { consentId, type: "cookie_banner" } })
    expect(checked.ok && checked.checkpoint.origin).toBe("client.test/log")

    // Each tampering is refused with its reason.
    expect(verifyConsentProof(proof, other.verifierKey)).toMatchObject({ ok: false })
    const leaf = JSON.parse(Buffer.from(proof.leaf, "base64").toString("utf8"))
    const edited = Buffer.from(JSON.stringify({ ...leaf, domain: "evil.example" })).toString("base64")
    expect(verifyConsentProof({ ...proof, leaf: edited }, verifierKey)).toMatchObject({
      ok: false,
      reason: "the leaf is not at its index in the checkpoint's tree"
    })
    expect(verifyConsentProof({ ...proof, treeSize: proof.treeSize + 1 }, verifierKey)).toMatchObject({ ok: false })
    const forged = proof.checkpoint.replace(/\n\d+\n/, `\n${proof.treeSize + 5}\n`)
    expect(verifyConsentProof({ ...proof, checkpoint: forged }, verifierKey)).toMatchObject({
      ok: false,
      reason: "the checkpoint is not signed by this key"
    })
  })

  it("checks offline that a later checkpoint extends a kept one", async () => {
    const kept = unwrap(await admin.log.checkpoint())
    const keptSize = Number(kept.split("\n")[1])
    await proofOf(await saveOne())
    await proofOf(await saveOne())
    const newer = unwrap(await admin.log.checkpoint())
    const newerSize = Number(newer.split("\n")[1])
    expect(newerSize).toBeGreaterThan(keptSize)
    const { proof } = unwrap(await admin.log.consistency({ from: keptSize, to: newerSize }))
    expect(verifyCheckpointConsistency({ older: kept, newer, proof, verifierKey })).toMatchObject({
      ok: true,
      older: { treeSize: keptSize },
      newer: { treeSize: newerSize }
    })
    // Swapped, or with a proof of other sizes, it is refused.
    expect(verifyCheckpointConsistency({ older: newer, newer: kept, proof, verifierKey }).ok).toBe(false)
    expect(verifyCheckpointConsistency({ older: kept, newer, proof: proof.slice(1), verifierKey }).ok).toBe(false)
  })

  it("validates input before sending and reports the backend's codes", async () => {
    const bad = await admin.log.consistency({ from: -1, to: 2 })
    expect(bad).toMatchObject({ ok: false, error: { code: "INVALID_INPUT" } })
    const tooFar = await admin.log.consistency({ from: 0, to: 1_000_000 })
    expect(tooFar).toMatchObject({ ok: false, error: { code: "INVALID_REQUEST", status: 400 } })
    const unknown = await admin.log.proof("cns_unknown")
    expect(unknown).toMatchObject({ ok: false, error: { code: "NOT_FOUND", status: 404 } })
    const publicClient = createSvcClient({ baseUrl: server.url, retry: false })
    expect(unwrap(await publicClient.log.key())).toBe(verifierKey)
  })

  it("has the log methods in the mock", async () => {
    const mock = createMockSvcClient({ log: { key: () => ok(verifierKey) } })
    expect(unwrap(await mock.log.key())).toBe(verifierKey)
    await expect(mock.log.proof("cns_x")).rejects.toThrow("no handler for log.proof")
  })
})
