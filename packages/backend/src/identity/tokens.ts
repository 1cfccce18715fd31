import { jwtVerify, SignJWT } from "jose"

export interface IdentityTokenSettings {
  readonly signingKey: string
  readonly issuer: string
  readonly audience: string
}

export interface IdentityClaims {
  readonly externalId: string
  readonly identityProvider: string | undefined
}

const keyBytes = (key: string) => new TextEncoder().encode(key)

/** Mints an HS256 identity token (`sub` = external id, optional `idp`), one hour by default. */
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

/** Verifies signature, algorithm, issuer, audience and expiry; `undefined` for any failure. */
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
