import { nodeHash, splitPoint } from "@svc/schema/transparency"

/**
 * Proofs from stored subtree hashes. The log keeps the hash of every complete, aligned subtree
 * (level 0: the leaves), so each subtree RFC 9162's proofs name is a stored node or is built from
 * O(log n) of them. Each proof is computed twice: once to learn which nodes it reads (the
 * reading returns placeholders), then with those nodes fetched in one statement.
 */

/** A complete subtree: `2^level` leaves from `index * 2^level`. */
export type NodeKey = readonly [level: number, index: number]

export type NodeReader = (level: number, index: number) => Buffer

/**
 * Hashes of incomplete subtrees (the tree's right edge) of one tree size, kept across its proofs:
 * a tree has at most log2(size) of them, and every proof against that size needs one, which
 * would otherwise be rehashed from O(log n) stored nodes per proof.
 */
export interface EdgeHashes {
  readonly get: (key: string) => Buffer | undefined
  readonly set: (key: string, hash: Buffer) => void
}

const isPowerOfTwo = (n: number) => splitPoint(n + 1) === n || n === 1

/** MTH(D[start:start+size]). */
const subtree = (read: NodeReader, start: number, size: number, edge?: EdgeHashes): Buffer => {
  if (isPowerOfTwo(size)) return read(Math.log2(size), start / size)
  const key = `${start}+${size}`
  const known = edge?.get(key)
  if (known !== undefined) return known
  const k = splitPoint(size)
  const hash = nodeHash(subtree(read, start, k, edge), subtree(read, start + k, size - k, edge))
  edge?.set(key, hash)
  return hash
}

/** RFC 9162 section 2.1.3.1: PATH(m, D[start:start+size]), nearest the leaf first. */
const path = (read: NodeReader, m: number, start: number, size: number, edge?: EdgeHashes): Array<Buffer> => {
  if (size <= 1) return []
  const k = splitPoint(size)
  return m < k
    ? [...path(read, m, start, k, edge), subtree(read, start + k, size - k, edge)]
    : [...path(read, m - k, start + k, size - k, edge), subtree(read, start, k, edge)]
}

/** RFC 9162 section 2.1.4.1: SUBPROOF(m, D[start:start+n], b). */
const subproof = (read: NodeReader, m: number, start: number, n: number, whole: boolean): Array<Buffer> => {
  if (m === n) return whole ? [] : [subtree(read, start, n)]
  const k = splitPoint(n)
  return m <= k
    ? [...subproof(read, m, start, k, whole), subtree(read, start + k, n - k)]
    : [...subproof(read, m - k, start + k, n - k, false), subtree(read, start, k)]
}

export const inclusionPath = (read: NodeReader, index: number, size: number, edge?: EdgeHashes): Array<Buffer> =>
  path(read, index, 0, size, edge)

export const consistencyPath = (read: NodeReader, from: number, to: number): Array<Buffer> =>
  from === 0 || from === to ? [] : subproof(read, from, 0, to, true)

export const rootOf = (read: NodeReader, size: number, edge?: EdgeHashes): Buffer => subtree(read, 0, size, edge)

/** The nodes `compute` reads, found by running it over placeholders. */
export const nodesRead = <A>(compute: (read: NodeReader) => A): Array<NodeKey> => {
  const keys = new Map<string, NodeKey>()
  const placeholder = Buffer.alloc(32)
  compute((level, index) => {
    keys.set(`${level}:${index}`, [level, index])
    return placeholder
  })
  return [...keys.values()]
}

/** A reader over fetched nodes; a node that is not there is a broken log, not a missing proof. */
export const readerOf = (nodes: ReadonlyMap<string, Buffer>): NodeReader => (level, index) => {
  const hash = nodes.get(`${level}:${index}`)
  if (hash === undefined) throw new Error(`the log has no node ${level}:${index}`)
  return hash
}
