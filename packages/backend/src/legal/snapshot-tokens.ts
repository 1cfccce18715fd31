import { jwtVerify, SignJWT } from "jose"
import { propertyOf } from "../codec/guards.js"

/**
 * Settings of the legal-document snapshot helpers: the `legalDocumentSnapshot` option block. The
 * defaults match what the backend verifies with (`issuer` `svc`, `audience` `svc-legal`, or
 * `svc-legal:<tenantId>` for a tenant-scoped instance).
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

/** What a legal-document snapshot says: which document (type and hash) the visitor was shown. */
export interface LegalDocumentSnapshot {
  readonly type: string
  readonly hash: string
  readonly version?: string | undefined
}

export const LEGAL_SNAPSHOT_TTL_SECONDS = 86_400

const issuerOf = (s: LegalDocumentSnapshotSettings) => s.issuer ?? "svc"
const audienceOf = (s: LegalDocumentSnapshotSettings) =>
  s.audience ?? (s.tenantId === undefined ? "svc-legal" : `svc-legal:${s.tenantId}`)
const keyOf = (s: LegalDocumentSnapshotSettings) => new TextEncoder().encode(s.signingKey)

/**
 * Signs an HS256 snapshot of the legal document a visitor is shown, for the browser to send back
 * as `documentSnapshotToken` on `POST /subjects`. Lifetime `ttlSeconds` (default 86400 s).
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
