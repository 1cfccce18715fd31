// What the runtime keeps in localStorage, and the guards that accept only that on the way back:
// the page's other scripts share the storage, so a key may hold `null` or a foreign value.
import { isOptionalString, isRecord, isString, propertyOf } from "./guards.js"
import type { SaveBody } from "./save-request.js"
import { ACTIONS, CATEGORIES, type StoredConsent } from "./types.js"

/** An identity link waiting for the subject's first save (`svc.identify` before any save). */
export interface PendingIdentity {
  externalId: string
  identityProvider?: string
  identityToken?: string
}

/** A save written to the replay queue before it is sent. */
export interface QueuedSave {
  key: string
  url: string
  body: SaveBody
  queuedAt: number
  attempts: number
}

const isNumber = (value: unknown): value is number => typeof value === "number"

/**
 * A choice this runtime stored: format 1 with the fields the state is derived from (its preferences
 * for every category, times, fingerprint and act). The optional fields it wrote along are read as
 * they are.
 */
export const isStoredConsent = (value: unknown): value is StoredConsent => {
  if (!isRecord(value)) return false
  const { preferences } = value
  return value.v === 1 &&
    isRecord(preferences) &&
    preferences.necessary === true &&
    CATEGORIES.every((category) => typeof preferences[category] === "boolean") &&
    isNumber(value.givenAt) &&
    isNumber(value.expiresAt) &&
    (value.fingerprint === null || isString(value.fingerprint)) &&
    ACTIONS.some((action) => action === value.action)
}

/** An identity link this runtime stored: sent as it is with the next save. */
export const isPendingIdentity = (value: unknown): value is PendingIdentity =>
  isRecord(value) &&
  isString(value.externalId) &&
  isOptionalString(value.identityProvider) &&
  isOptionalString(value.identityToken)

/**
 * A queued save as far as the queue reads it (key, url, counters, the body's time); the body goes
 * back to the backend as it was stored, which checks the rest.
 */
export const isQueuedSave = (value: unknown): value is QueuedSave =>
  isRecord(value) &&
  isString(value.key) &&
  isString(value.url) &&
  isNumber(value.queuedAt) &&
  isNumber(value.attempts) &&
  isNumber(propertyOf(value.body, "givenAt"))
