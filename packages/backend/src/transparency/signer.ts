import { type NoteSigner, parseSignerKey } from "@svc/schema/transparency"
import { Effect } from "effect"
import { SvcConfig } from "../config/resolved.js"

/**
 * The log's note signer, from `transparencyLog.signingKey` (checked when the options were
 * resolved); `undefined` when no log is configured. The checkpoint origin is the key's name.
 */
export class LogSigner extends Effect.Service<LogSigner>()("@svc/backend/LogSigner", {
  effect: Effect.gen(function*() {
    const config = yield* SvcConfig
    const settings = config.transparencyLog
    const signer: NoteSigner | undefined = settings === undefined ? undefined : parseSignerKey(settings.signingKey)
    if (settings !== undefined && signer === undefined)
      return yield* Effect.dieMessage("transparencyLog.signingKey is not a note signer key")
    const log: { readonly signer: NoteSigner | undefined; readonly intervalSeconds: number } = {
      signer,
      intervalSeconds: settings?.checkpointIntervalSeconds ?? 60
    }
    return log
  })
}) {}
