import {
  type Checkpoint,
  leafHash,
  openNote,
  parseCheckpointText,
  parseVerifierKey,
  verifyConsistency,
  verifyInclusion
} from "@svc/schema/transparency"

/*
 * Offline checks of svc's transparency log (docs/transparency-log.md): pure functions, no
 * network. A DPO's script fetches a proof once (or receives it in an export) and checks it
 * against the verifier key it obtained out of band, now or years later.
 */

/**
 * A checkpoint as read from a verified note: origin, tree size, root hash (base64).
 *
 * @example
 * ```ts
 * import type { VerifiedCheckpoint } from "@svc/client"
 *
 * // The line an auditor's register keeps for each checkpoint it verified.
 * const registerLine = (checkpoint: VerifiedCheckpoint, seenAt: Date) =>
 *   `${seenAt.toISOString()} ${checkpoint.origin} size=${checkpoint.treeSize} root=${checkpoint.rootHash}`
 * ```
 */
export interface VerifiedCheckpoint {
  readonly origin: string
  readonly treeSize: number
  readonly rootHash: string
}

/**
 * The outcome of an offline log check: `{ ok: true, … }` with what was verified, or `{ ok: false, reason }`.
 *
 * @example
 * ```ts
 * import type { LogCheck } from "@svc/client"
 *
 * // Any check becomes a line of the audit report.
 * const reportLine = <A>(what: string, check: LogCheck<A>) =>
 *   check.ok ? `PASS ${what}` : `FAIL ${what}: ${check.reason}`
 * ```
 */
export type LogCheck<A> =
  | ({ readonly ok: true } & A)
  | { readonly ok: false; readonly reason: string }

/**
 * What `GET /log/proof/:consentId` answers (and an export carries per record).
 *
 * @example
 * ```ts
 * import { type ConsentProofInput, verifyConsentProof } from "@svc/client"
 * import { readFile } from "node:fs/promises"
 *
 * // A proof kept in a case file years ago, checked again with the key published then.
 * const kept: ConsentProofInput = JSON.parse(await readFile("case-1042/cns_J8xQ2.proof.json", "utf8"))
 * // The verifier key as published: consent.example.com/log+1a2b3c4d+Ab9…
 * const checked = verifyConsentProof(kept, process.env.SVC_LOG_VERIFIER_KEY ?? "")
 * ```
 */
export interface ConsentProofInput {
  readonly leafIndex: number
  readonly treeSize: number
  readonly leaf: string
  readonly auditPath: ReadonlyArray<string>
  readonly checkpoint: string
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/
const hashOf = (text: unknown): Buffer | undefined =>
  typeof text === "string" && text.length === 44 && BASE64.test(text) ? Buffer.from(text, "base64") : undefined

const openCheckpoint = (
  note: unknown,
  verifierKey: string
): { readonly checkpoint: Checkpoint } | { readonly reason: string } => {
  const verifier = parseVerifierKey(verifierKey)
  if (verifier === undefined) return { reason: "the verifier key is not an Ed25519 note verifier key" }
  if (typeof note !== "string") return { reason: "the checkpoint is not a string" }
  const text = openNote(note, verifier)
  if (text === undefined) return { reason: "the checkpoint is not signed by this key" }
  const checkpoint = parseCheckpointText(text)
  if (checkpoint === undefined) return { reason: "the checkpoint is not a tlog-checkpoint" }
  if (checkpoint.origin !== verifier.name) return { reason: `the checkpoint is of another log (${checkpoint.origin})` }
  return { checkpoint }
}

const verified = (checkpoint: Checkpoint): VerifiedCheckpoint => ({
  origin: checkpoint.origin,
  treeSize: checkpoint.size,
  rootHash: checkpoint.root.toString("base64")
})

/**
 * Checks a consent record's proof offline: the checkpoint is signed by `verifierKey`, has the
 * proof's tree size, and the leaf is at `leafIndex` in that tree (RFC 9162 inclusion proof).
 * On success gives the record's leaf (its proof fields, docs/transparency-log.md) and the checkpoint.
 *
 * @example
 * ```ts
 * import { createSvcClient, unwrap, verifyConsentProof } from "@svc/client"
 *
 * // Was this consent recorded as shown, and has nobody changed it since? No trust in the database needed.
 * const svc = createSvcClient({ baseUrl: "https://consent.example.com", apiKey: process.env.SVC_API_KEY })
 * const proof = await unwrap(svc.log.proof("cns_J8xQ2mVt7LpA"))
 * const checked = verifyConsentProof(proof, process.env.SVC_LOG_VERIFIER_KEY ?? "")
 * if (checked.ok) console.log(checked.leaf["givenAt"], checked.leaf["preferences"], checked.checkpoint.treeSize)
 * else console.error(`proof does not hold: ${checked.reason}`)
 * ```
 */
export const verifyConsentProof = (
  proof: ConsentProofInput,
  verifierKey: string
): LogCheck<{ readonly leaf: Readonly<Record<string, unknown>>; readonly checkpoint: VerifiedCheckpoint }> => {
  const opened = openCheckpoint(proof.checkpoint, verifierKey)
  if ("reason" in opened) return { ok: false, reason: opened.reason }
  const { checkpoint } = opened
  if (checkpoint.size !== proof.treeSize) {
    return { ok: false, reason: `the checkpoint's tree size is ${checkpoint.size}, not the proof's ${proof.treeSize}` }
  }
  if (typeof proof.leaf !== "string" || !BASE64.test(proof.leaf)) return { ok: false, reason: "the leaf is not base64" }
  const path = Array.isArray(proof.auditPath) ? proof.auditPath.map(hashOf) : [undefined]
  const hashes = path.filter((hash): hash is Buffer => hash !== undefined)
  if (hashes.length !== path.length) return { ok: false, reason: "the audit path holds a value that is not a hash" }
  const data = Buffer.from(proof.leaf, "base64")
  const included = verifyInclusion({
    index: proof.leafIndex,
    size: proof.treeSize,
    leaf: leafHash(data),
    path: hashes,
    root: checkpoint.root
  })
  if (!included) return { ok: false, reason: "the leaf is not at its index in the checkpoint's tree" }
  let leaf: unknown
  try {
    leaf = JSON.parse(data.toString("utf8"))
  } catch {
    return { ok: false, reason: "the leaf is not JSON" }
  }
  if (typeof leaf !== "object" || leaf === null || Array.isArray(leaf))
    return { ok: false, reason: "the leaf is not an object" }
  return { ok: true, leaf: { ...leaf }, checkpoint: verified(checkpoint) }
}

/**
 * Checks offline that a newer checkpoint extends an older one, so nothing the older one covered
 * was changed or removed: both signed by `verifierKey`, and `proof` (from
 * `GET /log/consistency?from=<older size>&to=<newer size>`) an RFC 9162 consistency proof between them.
 *
 * @example
 * ```ts
 * import { type SvcPublicClient, unwrap, verifyCheckpointConsistency } from "@svc/client"
 *
 * // A monthly audit: the log today still contains everything last month's checkpoint covered.
 * export async function audit(svc: SvcPublicClient, older: { checkpoint: string; size: number }, verifierKey: string) {
 *   const newer = await unwrap(svc.log.checkpoint())
 *   const size = Number(newer.split("\n")[1]) // a checkpoint's second line is its tree size
 *   const { proof } = await unwrap(svc.log.consistency({ from: older.size, to: size }))
 *   return verifyCheckpointConsistency({ older: older.checkpoint, newer, proof, verifierKey })
 * }
 * ```
 */
export const verifyCheckpointConsistency = (input: {
  readonly older: string
  readonly newer: string
  readonly proof: ReadonlyArray<string>
  readonly verifierKey: string
}): LogCheck<{ readonly older: VerifiedCheckpoint; readonly newer: VerifiedCheckpoint }> => {
  const older = openCheckpoint(input.older, input.verifierKey)
  if ("reason" in older) return { ok: false, reason: `older: ${older.reason}` }
  const newer = openCheckpoint(input.newer, input.verifierKey)
  if ("reason" in newer) return { ok: false, reason: `newer: ${newer.reason}` }
  const path = Array.isArray(input.proof) ? input.proof.map(hashOf) : [undefined]
  const hashes = path.filter((hash): hash is Buffer => hash !== undefined)
  if (hashes.length !== path.length) return { ok: false, reason: "the proof holds a value that is not a hash" }
  const consistent = verifyConsistency({
    from: older.checkpoint.size,
    to: newer.checkpoint.size,
    fromRoot: older.checkpoint.root,
    toRoot: newer.checkpoint.root,
    proof: hashes
  })
  if (!consistent) return { ok: false, reason: "the newer checkpoint does not extend the older one" }
  return { ok: true, older: verified(older.checkpoint), newer: verified(newer.checkpoint) }
}
