import { createHash } from "node:crypto"

/**
 * Merkle tree hashing of RFC 9162 section 2.1 (as RFC 6962): a leaf is `SHA-256(0x00 || data)`,
 * an interior node `SHA-256(0x01 || left || right)`. Sizes and indices are plain numbers: a log
 * stays far below 2^53 leaves, and the arithmetic below never uses 32-bit bit operators.
 */

export const leafHash = (data: Uint8Array): Buffer => createHash("sha256").update(LEAF_PREFIX).update(data).digest()

export const nodeHash = (left: Uint8Array, right: Uint8Array): Buffer =>
  createHash("sha256").update(NODE_PREFIX).update(left).update(right).digest()

const LEAF_PREFIX = Buffer.from([0])
const NODE_PREFIX = Buffer.from([1])

/** The root of the empty tree: SHA-256 of the empty string. */
export const emptyRoot = (): Buffer => createHash("sha256").digest()

/** The largest power of two smaller than `n` (n > 1): RFC 9162's split point `k`. */
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

export const equalBytes = (a: Uint8Array, b: Uint8Array): boolean =>
  a.length === b.length &&
  Buffer.compare(
      Buffer.from(a.buffer, a.byteOffset, a.byteLength),
      Buffer.from(b.buffer, b.byteOffset, b.byteLength)
    ) === 0

/**
 * The root of a tree built leaf by leaf, keeping only the O(log n) complete subtrees on its right
 * edge: `svc verify` streams millions of leaves through one of these.
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

/** The sizes of the complete subtrees on the right edge of a tree of `size` leaves, largest first. */
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
