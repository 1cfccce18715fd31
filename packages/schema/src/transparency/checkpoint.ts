/**
 * The C2SP tlog-checkpoint body (https://c2sp.org/tlog-checkpoint): the origin line, the tree size
 * in decimal, the root hash in base64, each on its own line.
 *
 * @example
 * ```ts
 * import type { Checkpoint } from "@svc/schema/transparency"
 *
 * // What an auditor writes down of each checkpoint it keeps.
 * const auditLine = (checkpoint: Checkpoint) =>
 *   `${checkpoint.origin} size=${checkpoint.size} root=${checkpoint.root.toString("base64")}`
 * ```
 */
export interface Checkpoint {
  readonly origin: string
  readonly size: number
  readonly root: Buffer
}

/**
 * The text of a checkpoint, as it is signed: origin, size and base64 root hash, one per line.
 *
 * @example
 * ```ts
 * import { checkpointText, emptyRoot } from "@svc/schema/transparency"
 *
 * checkpointText({ origin: "consent.example.com/log", size: 0, root: emptyRoot() })
 * // "consent.example.com/log\n0\n47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\n"
 * ```
 */
export const checkpointText = (checkpoint: Checkpoint): string =>
  `${checkpoint.origin}\n${checkpoint.size}\n${checkpoint.root.toString("base64")}\n`

/**
 * Reads a checkpoint's text (a note's text, once opened); extension lines are allowed and ignored.
 *
 * @example
 * ```ts
 * import { openNote, parseCheckpointText, parseVerifierKey } from "@svc/schema/transparency"
 *
 * // The latest checkpoint from the public route, read only once its signature verifies.
 * const verifier = parseVerifierKey(process.env.SVC_LOG_VERIFIER_KEY ?? "")
 * const note = await fetch("https://consent.example.com/log/checkpoint").then((response) => response.text())
 * const text = verifier === undefined ? undefined : openNote(note, verifier)
 * const checkpoint = text === undefined ? undefined : parseCheckpointText(text)
 * console.log(checkpoint?.size) // the tree size it signs, e.g. 1042
 * ```
 */
export const parseCheckpointText = (text: string): Checkpoint | undefined => {
  const lines = text.split("\n")
  if (lines.length < 4 || lines.at(-1) !== "") return undefined
  const [origin = "", size = "", root = ""] = lines
  if (origin === "" || !/^(0|[1-9][0-9]{0,15})$/.test(size) || !/^[A-Za-z0-9+/]{43}=$/.test(root)) return undefined
  const count = Number(size)
  if (!Number.isSafeInteger(count)) return undefined
  return { origin, size: count, root: Buffer.from(root, "base64") }
}
