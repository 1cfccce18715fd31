/**
 * The C2SP tlog-checkpoint body (https://c2sp.org/tlog-checkpoint): the origin line, the tree size
 * in decimal, the root hash in base64, each on its own line.
 */
export interface Checkpoint {
  readonly origin: string
  readonly size: number
  readonly root: Buffer
}

export const checkpointText = (checkpoint: Checkpoint): string =>
  `${checkpoint.origin}\n${checkpoint.size}\n${checkpoint.root.toString("base64")}\n`

/** Reads a checkpoint's text (a note's text, once opened); extension lines are allowed and ignored. */
export const parseCheckpointText = (text: string): Checkpoint | undefined => {
  const lines = text.split("\n")
  if (lines.length < 4 || lines.at(-1) !== "") return undefined
  const [origin, size, root] = lines as [string, string, string]
  if (origin === "" || !/^(0|[1-9][0-9]{0,15})$/.test(size) || !/^[A-Za-z0-9+/]{43}=$/.test(root)) return undefined
  const count = Number(size)
  if (!Number.isSafeInteger(count)) return undefined
  return { origin, size: count, root: Buffer.from(root, "base64") }
}
