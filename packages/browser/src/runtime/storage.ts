// localStorage access that never throws: storage can be disabled, full or blocked in iframes.

export interface KeyValueStore {
  getItem(key: string): string | null
  setItem(key: string, value: string): void
  removeItem(key: string): void
}

export const memoryStore = (): KeyValueStore => {
  const map = new Map<string, string>()
  return {
    getItem: (key) => map.get(key) ?? null,
    setItem: (key, value) => void map.set(key, value),
    removeItem: (key) => void map.delete(key)
  }
}

/** The page's localStorage, or an in-memory stand-in when it cannot be used. */
export const pageStore = (): KeyValueStore => {
  try {
    const store = window.localStorage
    const probe = "svc.probe"
    store.setItem(probe, "1")
    store.removeItem(probe)
    return store
  } catch {
    return memoryStore()
  }
}

/**
 * The JSON under `key` when `is` accepts it, else `undefined`: the page's storage is shared with
 * its other scripts, so the key may hold `null`, an older shape or someone else's value.
 */
export const readJson = <T>(store: KeyValueStore, key: string, is: (value: unknown) => value is T): T | undefined => {
  try {
    const raw = store.getItem(key)
    const value: unknown = raw === null ? undefined : JSON.parse(raw)
    return is(value) ? value : undefined
  } catch {
    return undefined
  }
}

export const writeJson = (store: KeyValueStore, key: string, value: unknown): void => {
  try {
    if (value === undefined) store.removeItem(key)
    else store.setItem(key, JSON.stringify(value))
  } catch {
    // Quota or privacy mode: the in-page state still holds the choice for this view.
  }
}

export const KEYS = {
  subject: "svc.subject",
  consent: "svc.consent",
  queue: "svc.queue",
  identity: "svc.identity",
  dismissed: "svc.dismissed"
} as const
