import { jwtVerify, SignJWT } from "jose"

export interface IdentityTokenSettings {
  readonly signingKey: string
  readonly issuer: string
  readonly audience: string
}

/**
 * What a verified identity token says: the user's id in the app (`sub`) and, when the token names
 * one, the identity provider (`idp`).
 *
 * @example
 * ```ts
 * import { type IdentityClaims, verifyIdentityToken } from "@svc/backend"
 *
 * // A route of the app that accepts the same identity tokens svc does, from one provider only.
 * const settings = { signingKey: process.env.SVC_IDENTITY_KEY!, issuer: "svc", audience: "svc-identity" }
 * const auth0User = (claims: IdentityClaims | undefined) =>
 *   claims?.identityProvider === "auth0" ? claims.externalId : undefined
 * export const userOf = async (token: string) => auth0User(await verifyIdentityToken(settings, token))
 * ```
 */
export interface IdentityClaims {
  readonly externalId: string
  readonly identityProvider: string | undefined
}

const keyBytes = (key: string) => new TextEncoder().encode(key)

/**
 * Mints an HS256 identity token (`sub` = external id, optional `idp`), one hour by default.
 *
 * @example
 * ```ts
 * import { signIdentityToken } from "@svc/backend"
 *
 * // The app's session route gives the signed-in user's browser a token to link its subject with.
 * const settings = { signingKey: process.env.SVC_IDENTITY_KEY!, issuer: "svc", audience: "svc-identity" }
 * export const identityTokenFor = (userId: string) =>
 *   signIdentityToken(settings, { externalId: userId, identityProvider: "auth0" }, 15 * 60)
 * ```
 */
export const signIdentityToken = (
  settings: IdentityTokenSettings,
  claims: { readonly externalId: string; readonly identityProvider?: string | undefined },
  ttlSeconds = 3600
): Promise<string> => {
  const jwt = new SignJWT(claims.identityProvider === undefined ? {} : { idp: claims.identityProvider })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(claims.externalId)
    .setIssuer(settings.issuer)
    .setAudience(settings.audience)
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + ttlSeconds)
  return jwt.sign(keyBytes(settings.signingKey))
}

/**
 * Verifies signature, algorithm, issuer, audience and expiry; `undefined` for any failure.
 *
 * @example
 * ```ts
 * import { signIdentityToken, verifyIdentityToken } from "@svc/backend"
 *
 * const settings = { signingKey: process.env.SVC_IDENTITY_KEY!, issuer: "svc", audience: "svc-identity" }
 * const token = await signIdentityToken(settings, { externalId: "user-42" })
 * await verifyIdentityToken(settings, token) // { externalId: "user-42", identityProvider: undefined }
 * await verifyIdentityToken({ ...settings, audience: "svc-identity:staging" }, token) // undefined
 * ```
 */
export const verifyIdentityToken = async (
  settings: IdentityTokenSettings,
  token: string
): Promise<IdentityClaims | undefined> => {
  try {
    const { payload } = await jwtVerify(token, keyBytes(settings.signingKey), {
      algorithms: ["HS256"],
      issuer: settings.issuer,
      audience: settings.audience,
      requiredClaims: ["sub", "exp"]
    })
    if (typeof payload.sub !== "string" || payload.sub === "") return undefined
    const { idp } = payload
    if (idp !== undefined && typeof idp !== "string") return undefined
    return { externalId: payload.sub, identityProvider: idp }
  } catch {
    return undefined
  }
}
