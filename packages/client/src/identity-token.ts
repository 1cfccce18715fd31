import { SignJWT } from "jose"
import { checkInteger, isRecord } from "./checks.js"
import { SvcConfigurationError, type SvcIssue } from "./errors.js"

/**
 * Who the identity token names: the user ID the browser will link, and optionally its identity provider.
 *
 * @example
 * ```ts
 * import { createIdentityToken, type IdentityTokenClaims } from "@svc/client"
 *
 * // The claims of a user signed in with Auth0; the browser must then link with the same provider.
 * const claims = { externalId: "auth0|64f1c2a9", identityProvider: "auth0" } satisfies IdentityTokenClaims
 * const token = await createIdentityToken(claims, { signingKey: process.env.SVC_IDENTITY_TOKEN_KEY ?? "" })
 * ```
 */
export interface IdentityTokenClaims {
  /** The user ID the browser will link (`sub`). */
  readonly externalId: string
  /** When set (`idp`), the browser must send the same `identityProvider`. */
  readonly identityProvider?: string | undefined
}

/**
 * How the identity token is signed: the backend's `identityToken.signingKey`, and its lifetime,
 * issuer and audience (defaults match the backend's).
 *
 * @example
 * ```ts
 * import type { IdentityTokenOptions } from "@svc/client"
 *
 * // Ten minutes is enough between sign-in and the browser's link call.
 * const tokenOptions: IdentityTokenOptions = {
 *   signingKey: new TextEncoder().encode(process.env.SVC_IDENTITY_TOKEN_KEY),
 *   ttlSeconds: 600
 * }
 * ```
 */
export interface IdentityTokenOptions {
  /** The backend's `identityToken.signingKey`: at least 32 bytes. */
  readonly signingKey: string | Uint8Array
  /** Lifetime; default 3600 (one hour). */
  readonly ttlSeconds?: number | undefined
  /** Default `svc`, as the backend expects unless configured otherwise. */
  readonly issuer?: string | undefined
  /** Default `svc-identity`. */
  readonly audience?: string | undefined
}

const nonEmpty = (value: unknown, path: string, issues: Array<SvcIssue>) => {
  if (value !== undefined && (typeof value !== "string" || value.length === 0)) {
    issues.push({ path: [path], message: "must be a non-empty string" })
  }
}

/**
 * Mints the HS256 identity token that lets a browser verify a link without an API key. Resolves to
 * the token; rejects with `SvcConfigurationError` for invalid arguments (the key is never echoed).
 *
 * @example
 * ```ts
 * import { createIdentityToken } from "@svc/client"
 *
 * // Sign-in handler: the page hands the token to the banner, which links its subject to the user.
 * export async function afterSignIn(userId: string): Promise<Response> {
 *   const identityToken = await createIdentityToken(
 *     { externalId: userId, identityProvider: "auth0" },
 *     { signingKey: process.env.SVC_IDENTITY_TOKEN_KEY ?? "", ttlSeconds: 600 }
 *   )
 *   return Response.json({ identityToken })
 * }
 * ```
 */
export const createIdentityToken = async (
  claims: IdentityTokenClaims,
  options: IdentityTokenOptions
): Promise<string> => {
  const issues: Array<SvcIssue> = []
  if (!isRecord(claims)) issues.push({ path: ["claims"], message: "must be an object with externalId" })
  else {
    if (typeof claims.externalId !== "string" || claims.externalId.length === 0) {
      issues.push({ path: ["externalId"], message: "must be a non-empty string" })
    }
    nonEmpty(claims.identityProvider, "identityProvider", issues)
  }
  if (!isRecord(options)) issues.push({ path: ["options"], message: "must be an object with signingKey" })
  const noOptions: Partial<IdentityTokenOptions> = {}
  const { signingKey, ttlSeconds = 3600, issuer = "svc", audience = "svc-identity" } = isRecord(options)
    ? options
    : noOptions
  const bytes = typeof signingKey === "string" ? new TextEncoder().encode(signingKey) : signingKey
  const key = bytes instanceof Uint8Array && bytes.byteLength >= 32 ? bytes : undefined
  if (key === undefined) {
    issues.push({ path: ["signingKey"], message: "must be a string or Uint8Array of at least 32 bytes" })
  }
  issues.push(...checkInteger(ttlSeconds, ["ttlSeconds"], 1, 31_536_000))
  nonEmpty(issuer, "issuer", issues)
  nonEmpty(audience, "audience", issues)
  // An invalid key is always among the issues; `key` is checked again only for its type.
  if (issues.length > 0 || key === undefined) throw new SvcConfigurationError(issues, "identity token arguments")

  const now = Math.floor(Date.now() / 1000)
  const jwt = new SignJWT(claims.identityProvider === undefined ? {} : { idp: claims.identityProvider })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(claims.externalId)
    .setIssuer(issuer)
    .setAudience(audience)
    .setIssuedAt(now)
    .setExpirationTime(now + ttlSeconds)
  return jwt.sign(key)
}
