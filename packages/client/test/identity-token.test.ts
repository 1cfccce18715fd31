import { decodeProtectedHeader, jwtVerify } from "jose"
import { describe, expect, it } from "vitest"
import { createIdentityToken, SvcConfigurationError } from "../src/index.js"

const signingKey = "0123456789abcdef0123456789abcdef"
const key = new TextEncoder().encode(signingKey)

describe("createIdentityToken", () => {
  it("signs HS256 with sub = externalId, aud svc-identity, iss svc, and a one-hour expiry", async () => {
    const token = await createIdentityToken({ externalId: "user-1" }, { signingKey })
    expect(decodeProtectedHeader(token).alg).toBe("HS256")
    const { payload } = await jwtVerify(token, key, { issuer: "svc", audience: "svc-identity" })
    expect(payload.sub).toBe("user-1")
    expect(payload.exp! - payload.iat!).toBe(3600)
    expect(Math.abs(payload.iat! - Date.now() / 1000)).toBeLessThan(5)
    expect(payload).not.toHaveProperty("idp")
  })

  it("includes idp when identityProvider is given; honours ttlSeconds, issuer, audience and a byte key", async () => {
    const token = await createIdentityToken(
      { externalId: "user-1", identityProvider: "auth0" },
      { signingKey: key, ttlSeconds: 60, issuer: "acme", audience: "acme-identity" }
    )
    const { payload } = await jwtVerify(token, key, { issuer: "acme", audience: "acme-identity" })
    expect(payload.idp).toBe("auth0")
    expect(payload.exp! - payload.iat!).toBe(60)
  })

  it("rejects with SvcConfigurationError listing every problem, never echoing the key", async () => {
    const short = "too-short-secret"
    const error = await createIdentityToken(
      { externalId: "", identityProvider: "" },
      { signingKey: short, ttlSeconds: 0, issuer: "" }
    ).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(SvcConfigurationError)
    const issues = (error as SvcConfigurationError).issues.map((i) => i.path.join("."))
    expect(issues).toEqual(["externalId", "identityProvider", "signingKey", "ttlSeconds", "issuer"])
    expect((error as Error).message).not.toContain(short)
  })
})
