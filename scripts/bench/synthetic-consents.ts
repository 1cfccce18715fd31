/** Synthetic consent rows the export and log benches write straight into a SQLite file, and waiting for the log. */
import Database from "better-sqlite3"
import { randomBytes } from "node:crypto"
import { rssMb } from "./processes.js"

const START = Date.UTC(2025, 0, 1)
const SPAN = 300 * 86_400_000
const BATCH = 10_000

/**
 * Row `i` of `rows`: given times spread evenly over 300 days from 2025-01-01, every third one
 * granting measurement, 250,000 subjects in turn.
 */
export const syntheticConsent = (i: number, rows: number) => {
  const givenAt = START + Math.floor((i / rows) * SPAN)
  const granted = i % 3 === 0
  const id = `cns_bench${i.toString(36).padStart(8, "0")}`
  return {
    id,
    subjectId: `sub_bench${(i % 250_000).toString(36).padStart(8, "0")}`,
    actKey: `key-${id}`,
    givenAt,
    granted,
    receipts: JSON.stringify({
      measurement: { value: granted, confirmedAt: givenAt },
      marketing: { value: !granted, confirmedAt: givenAt },
      functionality: { value: true, confirmedAt: givenAt },
      experience: { value: false, confirmedAt: givenAt }
    })
  }
}

export interface LoadOptions {
  /** With the log's commitment columns (a database migrated with the transparency log, #27). */
  readonly log?: boolean
  /**
   * Which synthetic row the j-th write holds (default: row j). Rows are written, and so sequenced,
   * in `created_at` order; a permutation here gives them given times out of that order.
   */
  readonly rowAt?: (j: number) => number
  /** A running `svc serve` holds the write lock while it sequences: wait for it rather than fail. */
  readonly busyTimeoutMs?: number
}

/** Writes `rows` synthetic cookie-banner records into the svc SQLite database `file`, in batches. */
export const loadSyntheticConsents = (file: string, rows: number, options: LoadOptions = {}) => {
  const db = new Database(file)
  db.pragma("journal_mode = WAL")
  if (options.busyTimeoutMs !== undefined) db.pragma(`busy_timeout = ${options.busyTimeoutMs}`)
  const logColumns = options.log === true ? ", log_commitment, log_salt" : ""
  const insert = db.prepare(
    `INSERT INTO svc_consents (id, tenant_id, subject_id, act_key, act_digest, type, domain, given_at,
    created_at, preferences, receipts, policy_id, policy_fingerprint, ip_address, user_agent, surface, action${logColumns})
    VALUES (?, '', ?, ?, 'digest', 'cookie_banner', 'shop.example', ?, ?, ?, ?, 'eu-opt-in', 'fp-bench',
    '203.0.113.0', 'Mozilla/5.0 (bench)', 'banner', 'custom'${options.log === true ? ", ?, ?" : ""})`
  )
  const rowAt = options.rowAt ?? ((j: number) => j)
  const many = db.transaction((from: number) => {
    for (let j = from; j < Math.min(from + BATCH, rows); j++) {
      const row = syntheticConsent(rowAt(j), rows)
      const values = [
        row.id,
        row.subjectId,
        row.actKey,
        row.givenAt,
        syntheticConsent(j, rows).givenAt, // created_at: in write order
        JSON.stringify({ necessary: true, measurement: row.granted, marketing: !row.granted, functionality: true }),
        row.receipts
      ]
      insert.run(
        ...values,
        ...(options.log === true ? [randomBytes(32).toString("base64"), randomBytes(16).toString("base64")] : [])
      )
    }
  })
  for (let from = 0; from < rows; from += BATCH) many(from)
  db.close()
}

/** Resolves once the server at `origin` publishes a checkpoint covering `size` records. */
export const waitForLog = async (origin: string, size: number) => {
  for (;;) {
    // A busy SQLite server may drop a connection while a batch holds the event loop: ask again.
    const response = await fetch(`${origin}/log/checkpoint`).catch(() => undefined)
    const covered = response?.status === 200 ? Number((await response.text()).split("\n")[1]) : 0
    if (covered >= size) return
    await new Promise((resolve) => setTimeout(resolve, 500))
  }
}

/** Samples the resident memory of `pid` every 20 ms until `stop`, which resolves to the peak (MB). */
export const sampleRss = (pid: number, from: number) => {
  let peak = from
  let sampling = true
  const sampler = (async () => {
    while (sampling) {
      peak = Math.max(peak, await rssMb(pid))
      await new Promise((r) => setTimeout(r, 20))
    }
  })()
  return {
    stop: async () => {
      sampling = false
      await sampler
      return peak
    }
  }
}
