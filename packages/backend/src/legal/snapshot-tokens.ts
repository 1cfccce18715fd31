import { jwtVerify, SignJWT } from "jose"
import { propertyOf } from "../codec/guards.js"

/**
 * Settings of the legal-document snapshot helpers: the `legalDocumentSnapshot` option block. The
 * defaults match what the backend verifies with (`issuer` `svc`, `audience` `svc-legal`, or
 * `svc-legal:<tenantId>` for a tenant-scoped instance).
 *
 * @example
 * ```ts
 * import { type LegalDocumentSnapshotSettings, signLegalDocumentSnapshot } from "@svc/backend"
 *
 * // One signing key, one instance per brand: each token is made for its brand's tenant.
 * const settingsFor = (tenantId: string): LegalDocumentSnapshotSettings =>
 *   ({ signingKey: process.env.SVC_LEGAL_KEY!, tenantId, ttlSeconds: 3_600 })
 * export const snapshotFor = (tenantId: string, hash: string) =>
 *   signLegalDocumentSnapshot(settingsFor(tenantId), { type: "privacy_policy", hash })
 * ```
 */
export interface LegalDocumentSnapshotSettings {
  readonly signingKey: string
  readonly issuer?: string | undefined
  readonly audience?: string | undefined
  /** Lifetime of a signed snapshot, default 86400 seconds. */
  readonly ttlSeconds?: number | undefined
  /** The tenant of the instance that will verify the token, when it has one. */
  readonly tenantId?: string | undefined
}

/**
 * What a legal-document snapshot says: which document (type and hash) the visitor was shown.
 *
 * @example
 * ```ts
 * import { LegalDocuments, type LegalDocumentSnapshot } from "@svc/backend"
 * import type { LegalDocumentRelease } from "@svc/schema"
 * import { Effect } from "effect"
 *
 * // The page shows the current release, so the snapshot names that release.
 * const snapshotOf = (release: LegalDocumentRelease): LegalDocumentSnapshot =>
 *   ({ type: release.type, hash: release.hash, version: release.version })
 * const shown = Effect.flatMap(LegalDocuments, (documents) => documents.current("terms_and_conditions")).pipe(
 *   Effect.map(snapshotOf)
 * )
 * ```
 */
export interface LegalDocumentSnapshot {
  readonly type: string
  readonly hash: string
  readonly version?: string | undefined
}

/**
 * How long a signed legal-document snapshot stays valid when `ttlSeconds` is not set: 86400 seconds
 * (one day).
 *
 * @example
 * ```ts
 * import { LEGAL_SNAPSHOT_TTL_SECONDS, signLegalDocumentSnapshot } from "@svc/backend"
 *
 * // The cookie carrying the token to the sign-up form lives exactly as long as the token.
 * const token = await signLegalDocumentSnapshot(
 *   { signingKey: process.env.SVC_LEGAL_KEY! },
 *   { type: "terms_and_conditions", hash: "9b74c9897bac770ffc029102a200c5de", version: "2026-03" }
 * )
 * const cookie = `svc_terms=${token}; Max-Age=${LEGAL_SNAPSHOT_TTL_SECONDS}; Path=/signup; Secure; HttpOnly`
 * ```
 */
export const LEGAL_SNAPSHOT_TTL_SECONDS = 86_400

const issuerOf = (s: LegalDocumentSnapshotSettings) => s.issuer ?? "svc"
const audienceOf = (s: LegalDocumentSnapshotSettings) =>
  s.audience ?? (s.tenantId === undefined ? "svc-legal" : `svc-legal:${s.tenantId}`)
const keyOf = (s: LegalDocumentSnapshotSettings) => new TextEncoder().encode(s.signingKey)

/**
 * Signs an HS256 snapshot of the legal document a visitor is shown, for the browser to send back
 * as `documentSnapshotToken` on `POST /subjects`. Lifetime `ttlSeconds` (default 86400 s).
 *
 * @example
 * ```ts
 * import { signLegalDocumentSnapshot } from "@svc/backend"
 *
 * // The sign-up page embeds the token; the banner sends it back with the visitor's acceptance.
 * export const signupPage = async (terms: { version: string; hash: string; html: string }) => {
 *   const token = await signLegalDocumentSnapshot(
 *     { signingKey: process.env.SVC_LEGAL_KEY! },
 *     { type: "terms_and_conditions", hash: terms.hash, version: terms.version }
 *   )
 *   return `${terms.html}<input type="hidden" name="documentSnapshotToken" value="${token}">`
 * }
 * ```
 */
export const signLegalDocumentSnapshot = (
  settings: LegalDocumentSnapshotSettings,
  document: LegalDocumentSnapshot,
  now: Date = new Date()
): Promise<string> => {
  const iat = Math.floor(now.getTime() / 1000)
  return new SignJWT({
    doc: document.type,
    hash: document.hash,
    ...(document.version === undefined ? {} : { ver: document.version })
  })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setIssuer(issuerOf(settings))
    .setAudience(audienceOf(settings))
    .setIssuedAt(iat)
    .setExpirationTime(iat + (settings.ttlSeconds ?? LEGAL_SNAPSHOT_TTL_SECONDS))
    .sign(keyOf(settings))
}

/**
 * Verifies a legal-document snapshot (signature, algorithm, issuer, audience, and lifetime as of
 * `at`, 10 minutes of slack). `undefined` when it does not verify; `"expired"` when it verified
 * except for its lifetime.
 *
 * @example
 * ```ts
 * import { verifyLegalDocumentSnapshot } from "@svc/backend"
 *
 * // Before the app's own sign-up handler trusts a token, it checks which terms it names.
 * type Shown = { readonly ok: true; readonly hash: string } | { readonly ok: false; readonly reason: string }
 * export const termsShown = async (token: string, acceptedAt: Date): Promise<Shown> => {
 *   const snapshot = await verifyLegalDocumentSnapshot({ signingKey: process.env.SVC_LEGAL_KEY! }, token, acceptedAt)
 *   if (snapshot === undefined) return { ok: false, reason: "not a token of ours" }
 *   if (snapshot === "expired") return { ok: false, reason: "reload the page to see the current terms" }
 *   return { ok: true, hash: snapshot.hash }
 * }
 * ```
 */
export const verifyLegalDocumentSnapshot = async (
  settings: LegalDocumentSnapshotSettings,
  token: string,
  at: Date = new Date()
): Promise<LegalDocumentSnapshot | "expired" | undefined> => {
  try {
    const { payload } = await jwtVerify(token, keyOf(settings), {
      algorithms: ["HS256"],
      issuer: issuerOf(settings),
      audience: audienceOf(settings),
      currentDate: at,
      clockTolerance: 600,
      requiredClaims: ["iat", "exp"]
    })
    if (typeof payload.iat === "number" && at.getTime() < (payload.iat - 600) * 1000) return "expired"
    const { doc, hash, ver } = payload
    if (typeof doc !== "string" || typeof hash !== "string" || !(ver === undefined || typeof ver === "string"))
      return undefined
    return { type: doc, hash, version: ver }
  } catch (error) {
    return propertyOf(error, "code") === "ERR_JWT_EXPIRED" ? "expired" : undefined
  }
}
