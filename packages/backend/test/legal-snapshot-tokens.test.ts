import { LEGAL_SNAPSHOT_TTL_SECONDS, signLegalDocumentSnapshot, verifyLegalDocumentSnapshot } from "@svc/backend"
import { decodeJwt } from "jose"
import { describe, expect, it } from "vitest"

const settings = { signingKey: "legal-snapshot-key-0123456789abcdefgh" }

describe("legal-document snapshot helpers", () => {
  it("sign with a default lifetime of 86400 s, issuer svc and audience svc-legal", async () => {
    const now = new Date("2026-06-01T00:00:00Z")
    const token = await signLegalDocumentSnapshot(settings, { type: "privacy_policy", hash: "h1", version: "3" }, now)
    const claims = decodeJwt(token)
    expect(LEGAL_SNAPSHOT_TTL_SECONDS).toBe(86_400)
    expect(claims).toMatchObject({ iss: "svc", aud: "svc-legal", doc: "privacy_policy", hash: "h1", ver: "3" })
    expect(claims.exp! - claims.iat!).toBe(86_400)
    const at = (seconds: number) => new Date(now.getTime() + seconds * 1000)
    expect(await verifyLegalDocumentSnapshot(settings, token, at(86_000))).toEqual({
      type: "privacy_policy",
      hash: "h1",
      version: "3"
    })
    expect(await verifyLegalDocumentSnapshot(settings, token, at(86_400 + 599))).not.toBe("expired")
    expect(await verifyLegalDocumentSnapshot(settings, token, at(86_400 + 601))).toBe("expired")
    expect(await verifyLegalDocumentSnapshot(settings, token, at(-601))).toBe("expired")
  })

  it("scope the audience to a tenant and refuse other keys, issuers and audiences", async () => {
    const tenant = { ...settings, tenantId: "acme" }
    const token = await signLegalDocumentSnapshot(tenant, { type: "dpa", hash: "h" }, new Date())
    expect(decodeJwt(token).aud).toBe("svc-legal:acme")
    expect(await verifyLegalDocumentSnapshot(tenant, token)).toEqual({ type: "dpa", hash: "h", version: undefined })
    expect(await verifyLegalDocumentSnapshot(settings, token)).toBeUndefined()
    expect(await verifyLegalDocumentSnapshot({ ...tenant, signingKey: "x".repeat(40) }, token)).toBeUndefined()
    expect(await verifyLegalDocumentSnapshot({ ...tenant, issuer: "other" }, token)).toBeUndefined()
    expect(await verifyLegalDocumentSnapshot(tenant, "garbage")).toBeUndefined()
  })
})
