import { createHash } from "node:crypto"

/**
 * Merkle tree hashing of RFC 9162 section 2.1 (as RFC 6962): a leaf is `SHA-256(0x00 || data)`,
 * an interior node `SHA-256(0x01 || left || right)`. Sizes and indices are plain numbers: a log
 * stays far below 2^53 leaves, and the arithmetic below never uses 32-bit bit operators.
 */

/**
 * The RFC 9162 hash of a leaf: `SHA-256(0x00 || data)`.
 *
 * @example
 * ```ts
 * import { leafHash } from "@svc/schema/transparency"
 *
 * // A proof's `leaf` is the base64 of the leaf data; this is the hash the audit path starts from.
 * const leafHashOf = (leafBase64: string) => leafHash(Buffer.from(leafBase64, "base64"))
 * leafHash(new Uint8Array()).toString("hex") // "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d"
 * ```
 */
export const leafHash = (data: Uint8Array): Buffer => createHash("sha256").update(LEAF_PREFIX).update(data).digest()

/**
 * The RFC 9162 hash of an interior node: `SHA-256(0x01 || left || right)`.
 *
 * @example
 * ```ts
 * import { leafHash, nodeHash } from "@svc/schema/transparency"
 *
 * // The root of a four-leaf tree, pair by pair.
 * const [a, b, c, d] = ["r0", "r1", "r2", "r3"].map((data) => leafHash(Buffer.from(data)))
 * const root = a && b && c && d ? nodeHash(nodeHash(a, b), nodeHash(c, d)) : undefined
 * ```
 */
export const nodeHash = (left: Uint8Array, right: Uint8Array): Buffer =>
  createHash("sha256").update(NODE_PREFIX).update(left).update(right).digest()

const LEAF_PREFIX = Buffer.from([0])
const NODE_PREFIX = Buffer.from([1])

/**
 * The root of the empty tree: SHA-256 of the empty string.
 *
 * @example
 * ```ts
 * import { emptyRoot, TreeBuilder } from "@svc/schema/transparency"
 *
 * emptyRoot().toString("base64") // "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="
 * new TreeBuilder().root().equals(emptyRoot()) // true: a log before its first record
 * ```
 */
export const emptyRoot = (): Buffer => createHash("sha256").digest()

/**
 * The largest power of two smaller than `n` (n > 1): RFC 9162's split point `k`.
 *
 * @example
 * ```ts
 * import { emptyRoot, leafHash, nodeHash, splitPoint } from "@svc/schema/transparency"
 *
 * // RFC 9162's MTH written out as the RFC defines it, to cross-check a tree in a test.
 * const mth = (leaves: ReadonlyArray<Uint8Array>): Buffer => {
 *   if (leaves.length <= 1) return leaves[0] === undefined ? emptyRoot() : leafHash(leaves[0])
 *   const k = splitPoint(leaves.length) // 5 leaves split 4 + 1, 8 leaves 4 + 4
 *   return nodeHash(mth(leaves.slice(0, k)), mth(leaves.slice(k)))
 * }
 * ```
 */
export const splitPoint = (n: number): number => {
  let k = 1
  while (k * 2 < n) k *= 2
  return k
}

const isOdd = (n: number) => n % 2 === 1
const half = (n: number) => Math.floor(n / 2)

/**
 * Checks an inclusion proof (RFC 9162 section 2.1.3.2): that the leaf with hash `leaf` is at
 * `index` in the tree of `size` leaves whose root is `root`.
 *
 * @example
 * ```ts
 * import type { ConsentProof } from "@svc/schema"
 * import { type Checkpoint, leafHash, verifyInclusion } from "@svc/schema/transparency"
 *
 * // A proof from `GET /log/proof/:consentId`, against a checkpoint already opened and parsed.
 * const isIncluded = (proof: ConsentProof, checkpoint: Checkpoint) =>
 *   checkpoint.size === proof.treeSize &&
 *   verifyInclusion({
 *     index: proof.leafIndex,
 *     size: proof.treeSize,
 *     leaf: leafHash(Buffer.from(proof.leaf, "base64")),
 *     path: proof.auditPath.map((hash) => Buffer.from(hash, "base64")),
 *     root: checkpoint.root
 *   })
 * ```
 */
export const verifyInclusion = (input: {
  readonly index: number
  readonly size: number
  readonly leaf: Uint8Array
  readonly path: ReadonlyArray<Uint8Array>
  readonly root: Uint8Array
}): boolean => {
  if (!validCount(input.index) || !validCount(input.size) || input.index >= input.size) return false
  let fn = input.index
  let sn = input.size - 1
  let r: Uint8Array = input.leaf
  for (const p of input.path) {
    if (sn === 0) return false
    if (isOdd(fn) || fn === sn) {
      r = nodeHash(p, r)
      if (!isOdd(fn)) {
        while (!isOdd(fn) && fn !== 0) {
          fn = half(fn)
          sn = half(sn)
        }
      }
    } else {
      r = nodeHash(r, p)
    }
    fn = half(fn)
    sn = half(sn)
  }
  return sn === 0 && equalBytes(r, input.root)
}

/**
 * Checks a consistency proof (RFC 9162 section 2.1.4.2): that the tree of `from` leaves with root
 * `fromRoot` is a prefix of the tree of `to` leaves with root `toRoot`.
 *
 * @example
 * ```ts
 * import type { ConsistencyProof } from "@svc/schema"
 * import { type Checkpoint, verifyConsistency } from "@svc/schema/transparency"
 *
 * // Nothing an older kept checkpoint covered was changed: the newer tree extends it.
 * const extendsOlder = (older: Checkpoint, newer: Checkpoint, answer: ConsistencyProof) =>
 *   verifyConsistency({
 *     from: older.size,
 *     to: newer.size,
 *     fromRoot: older.root,
 *     toRoot: newer.root,
 *     proof: answer.proof.map((hash) => Buffer.from(hash, "base64"))
 *   })
 * ```
 */
export const verifyConsistency = (input: {
  readonly from: number
  readonly to: number
  readonly fromRoot: Uint8Array
  readonly toRoot: Uint8Array
  readonly proof: ReadonlyArray<Uint8Array>
}): boolean => {
  const { from, proof, to } = input
  if (!validCount(from) || !validCount(to) || from > to) return false
  if (from === to) return proof.length === 0 && equalBytes(input.fromRoot, input.toRoot)
  // The empty tree is a prefix of every tree; RFC 9162 defines no proof for it.
  if (from === 0) return proof.length === 0
  const path = isPowerOfTwo(from) ? [input.fromRoot, ...proof] : [...proof]
  const first = path[0]
  if (first === undefined) return false
  let fn = from - 1
  let sn = to - 1
  while (isOdd(fn)) {
    fn = half(fn)
    sn = half(sn)
  }
  let fr: Uint8Array = first
  let sr: Uint8Array = first
  for (const c of path.slice(1)) {
    if (sn === 0) return false
    if (isOdd(fn) || fn === sn) {
      fr = nodeHash(c, fr)
      sr = nodeHash(c, sr)
      if (!isOdd(fn)) {
        while (!isOdd(fn) && fn !== 0) {
          fn = half(fn)
          sn = half(sn)
        }
      }
    } else {
      sr = nodeHash(sr, c)
    }
    fn = half(fn)
    sn = half(sn)
  }
  return sn === 0 && equalBytes(fr, input.fromRoot) && equalBytes(sr, input.toRoot)
}

const validCount = (n: number) => Number.isSafeInteger(n) && n >= 0

const isPowerOfTwo = (n: number) => {
  let k = 1
  while (k < n) k *= 2
  return k === n
}

/**
 * True when two byte arrays hold the same bytes.
 *
 * @example
 * ```ts
 * import { type Checkpoint, equalBytes, type TreeBuilder } from "@svc/schema/transparency"
 *
 * // A root recomputed from exported leaves matches the signed checkpoint of the same size.
 * const matches = (recomputed: TreeBuilder, checkpoint: Checkpoint) =>
 *   recomputed.size === checkpoint.size && equalBytes(recomputed.root(), checkpoint.root)
 * ```
 */
export const equalBytes = (a: Uint8Array, b: Uint8Array): boolean =>
  a.length === b.length &&
  Buffer.compare(
      Buffer.from(a.buffer, a.byteOffset, a.byteLength),
      Buffer.from(b.buffer, b.byteOffset, b.byteLength)
    ) === 0

/**
 * The root of a tree built leaf by leaf, keeping only the O(log n) complete subtrees on its right
 * edge: `svc verify` streams millions of leaves through one of these.
 *
 * @example
 * ```ts
 * import { leafHash, TreeBuilder } from "@svc/schema/transparency"
 * import { createReadStream } from "node:fs"
 * import { createInterface } from "node:readline"
 *
 * // Recompute a log's root from its leaves (one base64 leaf per line), in O(log n) memory.
 * const tree = new TreeBuilder()
 * for await (const line of createInterface({ input: createReadStream("leaves.txt") })) {
 *   tree.push(leafHash(Buffer.from(line, "base64")))
 * }
 * console.log(tree.size, tree.root().toString("base64"))
 * ```
 */
export class TreeBuilder {
  /** Complete subtrees, largest (leftmost) first: `[size, hash]`. */
  private readonly stack: Array<[number, Buffer]> = []
  private count = 0

  get size(): number {
    return this.count
  }

  /** Adds the next leaf by its leaf hash; returns the complete subtrees it closed, as `[level, index, hash]`. */
  push(hash: Buffer): Array<readonly [level: number, index: number, hash: Buffer]> {
    const closed: Array<readonly [number, number, Buffer]> = []
    let entry: [number, Buffer] = [1, hash]
    const end = this.count + 1
    for (;;) {
      const last = this.stack.at(-1)
      if (last === undefined || last[0] !== entry[0]) break
      this.stack.pop()
      const size = entry[0] * 2
      entry = [size, nodeHash(last[1], entry[1])]
      closed.push([Math.log2(size), (end - size) / size, entry[1]])
    }
    this.stack.push(entry)
    this.count = end
    return closed
  }

  /** The root of the tree so far (RFC 9162's MTH). */
  root(): Buffer {
    let root: Buffer | undefined
    for (let i = this.stack.length - 1; i >= 0; i--) {
      const [, hash] = this.stack[i]!
      root = root === undefined ? hash : nodeHash(hash, root)
    }
    return root ?? emptyRoot()
  }

  /** Starts from a stored right edge: the complete subtrees of a tree of `size` leaves, largest first. */
  static resume(size: number, edge: ReadonlyArray<Buffer>): TreeBuilder {
    const builder = new TreeBuilder()
    const sizes = edgeSizes(size)
    if (sizes.length !== edge.length) throw new Error("the edge does not match the tree size")
    sizes.forEach((s, i) => builder.stack.push([s, edge[i]!]))
    builder.count = size
    return builder
  }
}

/**
 * The sizes of the complete subtrees on the right edge of a tree of `size` leaves, largest first.
 *
 * @example
 * ```ts
 * import { edgeSizes } from "@svc/schema/transparency"
 *
 * // A tree of 13 leaves is three complete subtrees; `TreeBuilder.resume(13, edge)` takes their three hashes.
 * edgeSizes(13) // [8, 4, 1]
 * ```
 */
export const edgeSizes = (size: number): Array<number> => {
  const sizes: Array<number> = []
  let rest = size
  let power = 1
  while (power * 2 <= rest) power *= 2
  for (; power >= 1; power /= 2) {
    if (rest >= power) {
      sizes.push(power)
      rest -= power
    }
  }
  return sizes
}
