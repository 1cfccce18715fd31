import { randomFillSync } from "node:crypto"

/**
 * Random bytes drawn from a buffer the system's CSPRNG refills 4 KiB at a time, as Node's own
 * `randomUUID` does: a save takes 32 bytes (its consent id and its log salt), so one refill
 * serves 128 saves instead of one `randomBytes` call per value. Each `Consents` service holds
 * its own pool (nothing process-wide), and every draw is a copy, so a refill never changes a
 * value already handed out.
 */
export const makeRandomPool = (size = 4096): (bytes: number) => Buffer => {
  const pool = Buffer.allocUnsafe(size)
  let offset = size
  return (bytes) => {
    if (bytes > size) return randomFillSync(Buffer.allocUnsafe(bytes))
    if (offset + bytes > size) {
      randomFillSync(pool)
      offset = 0
    }
    const drawn = Buffer.from(pool.subarray(offset, offset + bytes))
    offset += bytes
    return drawn
  }
}
