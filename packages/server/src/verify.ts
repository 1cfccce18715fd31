import { generateLogSignerKey, type SvcOptions, verifyTransparencyLog } from "@svc/backend"

/*
 * `svc verify` and `svc keys log`, the transparency log's commands (docs/transparency-log.md).
 */

/**
 * Recomputes the log from the stored rows and checks every stored checkpoint; prints one line per
 * problem (naming the consent id or the checkpoint) and a summary. Returns the exit code: 0 when
 * the log matches the rows, 1 when anything does not.
 */
export const verifyCommand = async (options: SvcOptions, input: { readonly verifierKey?: string }): Promise<number> => {
  const started = performance.now()
  const result = await verifyTransparencyLog(options, input)
  for (const problem of result.problems) console.log(`svc verify: ${problem.message}`)
  const seconds = ((performance.now() - started) / 1000).toFixed(1)
  const pending = result.pending === 0 ? "" : `; ${result.pending} saved records not sequenced yet`
  console.log(
    result.problems.length === 0
      ? `svc verify: ok, ${result.leaves} records and ${result.checkpoints} checkpoints match (${seconds} s${pending})`
      : `svc verify: FAILED, ${result.problems.length} problems in ${result.leaves} records and ${result.checkpoints} checkpoints (${seconds} s${pending})`
  )
  return result.problems.length === 0 ? 0 : 1
}

/** A key name: the log's origin line, non-empty, without spaces or `+`. */
const DEFAULT_LOG_KEY_NAME = "svc.localhost/consent-log"

/** `svc keys log [--name NAME]`: a new note signer key and its verifier key. */
export const logKeysCommand = (name: string | undefined): string => {
  const { signerKey, verifierKey } = generateLogSignerKey(name ?? DEFAULT_LOG_KEY_NAME)
  return [
    "# transparencyLog.signingKey (secret: keep it like a password)",
    signerKey,
    "# verifier key (public: give it to auditors; GET /log/key answers it)",
    verifierKey
  ].join("\n")
}
