import { KEYS, type KeyValueStore } from "./storage.js"

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

/** `length` characters of [A-Za-z0-9_-] from the platform's CSPRNG (64 symbols: no modulo bias). */
export const randomToken = (length: number, random: (bytes: Uint8Array) => Uint8Array): string => {
  const bytes = random(new Uint8Array(length))
  let out = ""
  for (let i = 0; i < length; i++) out += ALPHABET[bytes[i]! & 63]
  return out
}

export const SUBJECT_PATTERN = /^sub_[A-Za-z0-9_-]{8,128}$/

/** The visitor's subject id: read from storage, or generated once (32 random characters) and stored. */
export const subjectId = (store: KeyValueStore, random: (bytes: Uint8Array) => Uint8Array): string => {
  const existing = store.getItem(KEYS.subject)
  if (existing !== null && SUBJECT_PATTERN.test(existing)) return existing
  const id = "sub_" + randomToken(32, random)
  try {
    store.setItem(KEYS.subject, id)
  } catch {
    // Not persisted: this page view still uses one id.
  }
  return id
}
