import type { SvcCallOptions } from "../call-options.js"
import type { SvcApiClient } from "../effect-client.js"
import type { SvcIssue } from "../errors.js"
import type { SvcResult } from "../result.js"
import type { Runtime } from "../runner.js"
import { checkPart, endpointOf, objectIssue } from "../validate.js"
import { callMethod, type CodesOf, type KeyCodesOf, type SuccessOf } from "./define.js"
import { callOf } from "../transport.js"

type Log = SvcApiClient["transparencyLog"]

export type CheckpointCode = CodesOf<Log["checkpoint"]>
export type VerifierKeyCode = CodesOf<Log["key"]>
export type ConsentProofData = SuccessOf<Log["proof"]>
export type ConsentProofCode = KeyCodesOf<Log["proof"]>
export type ConsistencyProofData = SuccessOf<Log["consistency"]>
export type ConsistencyProofCode = CodesOf<Log["consistency"]>

export interface ConsistencyInput {
  /** The older tree size (a checkpoint you kept). */
  readonly from: number
  /** The newer tree size, at most the latest checkpoint's. */
  readonly to: number
}

/** The public routes of the transparency log: anyone may keep and check its checkpoints. */
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
    callMethod<string, CheckpointCode>(runtime, { name: "log.checkpoint", needsKey: false }, options, () => ({
      auth: "none",
      call: callOf("transparencyLog", "checkpoint", {}),
      toData: (value) => ({ data: String(value) })
    })),
  key: (options) =>
    callMethod<string, VerifierKeyCode>(runtime, { name: "log.key", needsKey: false }, options, () => ({
      auth: "none",
      call: callOf("transparencyLog", "key", {}),
      toData: (value) => ({ data: String(value) })
    })),
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
        return {
          auth: "none",
          call: callOf("transparencyLog", "consistency", { urlParams }),
          toData: (value) => ({ data: value as ConsistencyProofData })
        }
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
        return {
          auth: "required",
          call: callOf("transparencyLog", "proof", { path: { consentId } }),
          toData: (value) => ({ data: value as ConsentProofData })
        }
      }
    )
})
