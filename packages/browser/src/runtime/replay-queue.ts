// Saves are written here before they are sent and removed once the backend answered for good,
// so a save survives a network failure, a 5xx/408/429 and a navigation in mid-flight. Each entry
// is replayed as it was first built: same `givenAt`, same policy snapshot token.
import { isList } from "./guards.js"
import { KEYS, readJson, writeJson, type KeyValueStore } from "./storage.js"
import type { SaveBody } from "./save-request.js"
import { isQueuedSave, type QueuedSave } from "./stored.js"
import { sendJson, type Delivery, type Fetch } from "./transport.js"

export const REPLAY_WINDOW_MS = 7 * 86_400_000
const MAX_ENTRIES = 50

export interface ReplayQueue {
  /** Writes the save to the queue, sends it, and keeps it only if it should be retried. */
  submit(url: string, body: SaveBody): Promise<Delivery>
  /** Sends every queued save once; drops those older than 7 days or refused with a 4xx. */
  flush(): Promise<void>
  pending(): ReadonlyArray<QueuedSave>
}

export const createReplayQueue = (
  store: KeyValueStore,
  fetchFn: Fetch,
  now: () => number,
  onDelivered: (entry: QueuedSave, delivery: Delivery) => void = () => {}
): ReplayQueue => {
  const inFlight = new Set<string>()
  // A foreign value under the key reads as an empty queue, a foreign entry as none.
  const read = (): Array<QueuedSave> => (readJson(store, KEYS.queue, isList) ?? []).filter(isQueuedSave)
  const write = (entries: Array<QueuedSave>): void =>
    writeJson(store, KEYS.queue, entries.length > 0 ? entries : undefined)
  const update = (key: string, change: (entry: QueuedSave) => QueuedSave | undefined): void => {
    const entries: Array<QueuedSave> = []
    for (const entry of read()) {
      if (entry.key !== key) entries.push(entry)
      else {
        const next = change(entry)
        if (next !== undefined) entries.push(next)
      }
    }
    write(entries)
  }
  const fresh = (entry: QueuedSave): boolean => now() - Math.min(entry.queuedAt, entry.body.givenAt) <= REPLAY_WINDOW_MS

  const attempt = async (entry: QueuedSave): Promise<Delivery> => {
    inFlight.add(entry.key)
    try {
      const delivery = await sendJson(fetchFn, "POST", entry.url, entry.body)
      if (delivery.kind === "retry") update(entry.key, (e) => ({ ...e, attempts: e.attempts + 1 }))
      else update(entry.key, () => undefined)
      onDelivered(entry, delivery)
      return delivery
    } finally {
      inFlight.delete(entry.key)
    }
  }

  return {
    submit: (url, body) => {
      const entry: QueuedSave = { key: `${body.subjectId}@${body.givenAt}`, url, body, queuedAt: now(), attempts: 0 }
      const entries = read().filter((e) => e.key !== entry.key)
      entries.push(entry)
      write(entries.slice(-MAX_ENTRIES))
      return attempt(entry)
    },
    flush: async () => {
      const entries = read()
      const keep = entries.filter(fresh)
      if (keep.length !== entries.length) write(keep)
      for (const entry of keep) {
        if (!inFlight.has(entry.key)) await attempt(entry)
      }
    },
    pending: read
  }
}
