import type { SvcCallOptions } from "../call-options.js"
import type { SvcApiClient } from "../effect-client.js"
import type { SvcIssue } from "../errors.js"
import type { SvcResult } from "../result.js"
import { bodyOperation, type Runtime } from "../runner.js"
import { checkPart, endpointOf, objectIssue } from "../validate.js"
import { callMethod, type CodesOf, type KeyCodesOf, type SuccessOf } from "./define.js"
import { callOf } from "../transport.js"

type Log = SvcApiClient["transparencyLog"]

/**
 * The codes `log.checkpoint` can fail with: `NOT_FOUND` without a log, or before its first checkpoint.
 *
 * @example
 * ```ts
 * import type { CheckpointCode } from "@svc/client"
 *
 * // An auditor's collector: no checkpoint yet is normal on a new instance, not an outage.
 * const collectorState = (code: CheckpointCode) => (code === "NOT_FOUND" ? "waiting-for-first-checkpoint" : "failing")
 * ```
 */
export type CheckpointCode = CodesOf<Log["checkpoint"]>
/**
 * The codes `log.key` can fail with: `NOT_FOUND` when the instance keeps no log.
 *
 * @example
 * ```ts
 * import type { VerifierKeyCode } from "@svc/client"
 *
 * // An onboarding check: the instance must keep a transparency log before proofs are promised.
 * const logConfigured = (failure: VerifierKeyCode | undefined) =>
 *   failure === undefined ? "yes" : failure === "NOT_FOUND" ? "no: set transparencyLog.signingKey" : "unknown"
 * ```
 */
export type VerifierKeyCode = CodesOf<Log["key"]>
/**
 * `log.proof`'s data: the record's leaf, its inclusion proof and the signed checkpoint it proves
 * against; check it offline with `verifyConsentProof`.
 *
 * @example
 * ```ts
 * import type { ConsentProofData } from "@svc/client"
 * import { writeFile } from "node:fs/promises"
 *
 * // Proof of a disputed consent, kept with the case file: it can be checked years later without svc.
 * const fileProof = (caseId: string, consentId: string, proof: ConsentProofData) =>
 *   writeFile(`case-${caseId}/${consentId}.proof.json`, JSON.stringify({ consentId, ...proof }, null, 2))
 * ```
 */
export type ConsentProofData = SuccessOf<Log["proof"]>
/**
 * The codes `log.proof` can fail with: `NOT_FOUND` for an unknown record, or one saved since the last checkpoint.
 *
 * @example
 * ```ts
 * import type { ConsentProofCode } from "@svc/client"
 *
 * // A record saved a moment ago is in the next checkpoint (every minute by default): ask again later.
 * const proofRetryAfterSeconds = (code: ConsentProofCode) => (code === "NOT_FOUND" ? 60 : undefined)
 * ```
 */
export type ConsentProofCode = KeyCodesOf<Log["proof"]>
/**
 * `log.consistency`'s data: the two sizes and the RFC 9162 proof (`proof`, base64 hashes); check it
 * with `verifyCheckpointConsistency`.
 *
 * @example
 * ```ts
 * import type { ConsistencyProofData } from "@svc/client"
 *
 * // An auditor logs how much the log grew and how long the proof of it is.
 * const growth = (data: ConsistencyProofData) =>
 *   `${data.to - data.from} new leaves, proof of ${data.proof.length} hashes`
 * ```
 */
export type ConsistencyProofData = SuccessOf<Log["consistency"]>
/**
 * The codes `log.consistency` can fail with (`INVALID_REQUEST` when `to` is past the latest checkpoint).
 *
 * @example
 * ```ts
 * import type { ConsistencyProofCode } from "@svc/client"
 *
 * // A `to` past the latest checkpoint means the auditor's clock ran ahead of svc's: fetch the checkpoint first.
 * const fixFor = (code: ConsistencyProofCode) =>
 *   code === "INVALID_REQUEST"
 *     ? "fetch the latest checkpoint and use its size"
 *     : code === "NOT_FOUND"
 *     ? "no log here"
 *     : "retry"
 * ```
 */
export type ConsistencyProofCode = CodesOf<Log["consistency"]>

/**
 * The two tree sizes `log.consistency` proves between: a checkpoint you kept and a newer one.
 *
 * @example
 * ```ts
 * import type { ConsistencyInput } from "@svc/client"
 *
 * // From the size of the checkpoint kept last month to the size of today's.
 * const sinceLastAudit = (keptSize: number, latestSize: number): ConsistencyInput => ({
 *   from: keptSize,
 *   to: latestSize
 * })
 * ```
 */
export interface ConsistencyInput {
  /** The older tree size (a checkpoint you kept). */
  readonly from: number
  /** The newer tree size, at most the latest checkpoint's. */
  readonly to: number
}

/**
 * The public routes of the transparency log: anyone may keep and check its checkpoints.
 *
 * @example
 * ```ts
 * import { createSvcClient, type PublicLogMethods } from "@svc/client"
 *
 * // An outside witness needs no key: it keeps the latest checkpoint, signed by the published key.
 * const witness = async (log: PublicLogMethods) => {
 *   const [checkpoint, key] = await Promise.all([log.checkpoint(), log.key()])
 *   return checkpoint.ok && key.ok ? { checkpoint: checkpoint.data, key: key.data } : undefined
 * }
 * const kept = await witness(createSvcClient({ baseUrl: "https://consent.example.com" }).log)
 * ```
 */
export interface PublicLogMethods {
  /** `GET /log/checkpoint`: the latest signed checkpoint (C2SP tlog-checkpoint, a signed note). */
  readonly checkpoint: (options?: SvcCallOptions) => Promise<SvcResult<string, CheckpointCode>>
  /** `GET /log/key`: the log's note verifier key. Compare it with one obtained out of band. */
  readonly key: (options?: SvcCallOptions) => Promise<SvcResult<string, VerifierKeyCode>>
  /** `GET /log/consistency?from=&to=`: RFC 9162 consistency proof between two tree sizes. */
  readonly consistency: (
    input: ConsistencyInput,
    options?: SvcCallOptions
  ) => Promise<SvcResult<ConsistencyProofData, ConsistencyProofCode>>
}

/**
 * The transparency log methods of a client with an API key: the public ones and `proof`.
 *
 * @example
 * ```ts
 * import { type LogCheck, type LogMethods, verifyConsentProof } from "@svc/client"
 *
 * // The DPO's check of one record: fetch its proof and verify it against the published key.
 * export async function proveConsent(log: LogMethods, consentId: string, verifierKey: string) {
 *   const proof = await log.proof(consentId)
 *   if (!proof.ok) return { ok: false, reason: `no proof: ${proof.error.code}` } satisfies LogCheck<never>
 *   return verifyConsentProof(proof.data, verifierKey)
 * }
 * ```
 */
export interface LogMethods extends PublicLogMethods {
  /** `GET /log/proof/:consentId` (API key): the record's leaf, inclusion proof and checkpoint; check it with `verifyConsentProof`. */
  readonly proof: (
    consentId: string,
    options?: SvcCallOptions
  ) => Promise<SvcResult<ConsentProofData, ConsentProofCode>>
}

const proofEndpoint = endpointOf("transparencyLog", "proof")
const consistencyEndpoint = endpointOf("transparencyLog", "consistency")

export const logMethods = (runtime: Runtime): LogMethods => ({
  checkpoint: (options) =>
    callMethod<string, CheckpointCode>(
      runtime,
      { name: "log.checkpoint", needsKey: false },
      options,
      () => bodyOperation("none", callOf("transparencyLog", "checkpoint", {}))
    ),
  key: (options) =>
    callMethod<string, VerifierKeyCode>(
      runtime,
      { name: "log.key", needsKey: false },
      options,
      () => bodyOperation("none", callOf("transparencyLog", "key", {}))
    ),
  consistency: (input, options) =>
    callMethod<ConsistencyProofData, ConsistencyProofCode>(
      runtime,
      { name: "log.consistency", needsKey: false },
      options,
      () => {
        const shape = objectIssue(input, ["from", "to"], "from and to (tree sizes)")
        if (shape.length > 0) return shape
        const urlParams = { from: input.from, to: input.to }
        const issues: Array<SvcIssue> = checkPart(consistencyEndpoint.urlParamsSchema, urlParams)
        if (issues.length > 0) return issues
        return bodyOperation("none", callOf("transparencyLog", "consistency", { urlParams }))
      }
    ),
  proof: (consentId, options) =>
    callMethod<ConsentProofData, ConsentProofCode>(
      runtime,
      { name: "log.proof", needsKey: true },
      options,
      () => {
        const issues: Array<SvcIssue> = typeof consentId === "string"
          ? checkPart(proofEndpoint.pathSchema, { consentId })
          : [{ path: ["consentId"], message: "must be a string" }]
        if (issues.length > 0) return issues
        return bodyOperation("required", callOf("transparencyLog", "proof", { path: { consentId } }))
      }
    )
})
