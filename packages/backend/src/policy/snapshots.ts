import { PolicySnapshotInvalid } from "@svc/api"
import { decodeJwt, jwtVerify, SignJWT } from "jose"
import { Effect, Option } from "effect"
import { SvcConfig } from "../config/resolved.js"

/**
 * What a policy snapshot token says: the rule `/init` resolved, and the inputs it resolved from.
 *
 * @example
 * ```ts
 * import { PolicySnapshots, type SnapshotClaims } from "@svc/backend"
 * import { Effect } from "effect"
 *
 * // Support tooling: what the token in a visitor's bug report says.
 * const describe = (claims: SnapshotClaims) =>
 *   `rule ${claims.policyId} for ${claims.country ?? "an unknown country"}${claims.gpc ? " with GPC" : ""}, ` +
 *   `issued ${new Date(claims.issuedAt * 1000).toISOString()}`
 * export const inspect = (token: string) =>
 *   Effect.flatMap(PolicySnapshots, (snapshots) => snapshots.verify(token)).pipe(Effect.map(describe))
 * ```
 */
export interface SnapshotClaims {
  /** Matched rule id. */
  readonly policyId: string
  /** Fingerprint of the matched rule when the token was issued. */
  readonly fingerprint: string
  /** Manifest revision the decision was made under. */
  readonly revision: string
  readonly country: string | null
  readonly region: string | null
  readonly gpc: boolean
  /** Issue time and expiry, epoch seconds. */
  readonly issuedAt: number
  readonly expiresAt: number
}

type Payload = {
  pid?: unknown
  fp?: unknown
  rev?: unknown
  cc?: unknown
  rg?: unknown
  gpc?: unknown
  iat?: unknown
  exp?: unknown
}

const invalid = (message: string) => new PolicySnapshotInvalid({ message })

const readClaims = (payload: Payload): SnapshotClaims | undefined => {
  const { pid, fp, rev, cc, rg, gpc, iat, exp } = payload
  if (typeof pid !== "string" || typeof fp !== "string" || typeof rev !== "string") return undefined
  if (typeof iat !== "number" || typeof exp !== "number" || exp <= iat) return undefined
  if (
    !(cc === null || typeof cc === "string") || !(rg === null || typeof rg === "string") || typeof gpc !== "boolean"
  ) {
    return undefined
  }
  return { policyId: pid, fingerprint: fp, revision: rev, country: cc, region: rg, gpc, issuedAt: iat, expiresAt: exp }
}

/**
 * Signs and verifies policy snapshot tokens (HS256, `policySnapshot` options). The key is
 * imported once. `verify` checks signature, algorithm, issuer, tenant audience and claim
 * completeness only: the time rules of late saves belong to the caller, which knows `givenAt`.
 *
 * @example
 * ```ts
 * import { PolicySnapshots, resolveOptions, SvcConfig } from "@svc/backend"
 * import { Effect, Layer } from "effect"
 *
 * // A load test signs the token /init would give a German visitor, then saves against it.
 * const config = resolveOptions({
 *   database: { dialect: "sqlite", url: ":memory:" },
 *   policySnapshot: { signingKey: process.env.SVC_SNAPSHOT_KEY! }
 * })
 * const token = Effect.flatMap(PolicySnapshots, (snapshots) =>
 *   snapshots.sign({ policyId: "eu", fingerprint: "q3M8vNw1Zk2Ry5Tb9Lh0Pa", revision: "Jx2fQ9cVt4mB0aLr7sKe1w",
 *     country: "DE", region: null, gpc: false })
 * ).pipe(Effect.provide(PolicySnapshots.Default), Effect.provide(Layer.succeed(SvcConfig, config)))
 * ```
 */
export class PolicySnapshots extends Effect.Service<PolicySnapshots>()("@svc/backend/PolicySnapshots", {
  effect: Effect.gen(function*() {
    const config = yield* SvcConfig
    const settings = config.policySnapshot
    // Imported once: handing jose raw bytes would re-import the key on every sign and verify.
    const key = settings === undefined ? undefined : yield* Effect.promise(() =>
      crypto.subtle.importKey(
        "raw",
        new TextEncoder().encode(settings.signingKey),
        { name: "HMAC", hash: "SHA-256" },
        false,
        ["sign", "verify"]
      )
    )

    /** `None` when signing is not configured. */
    const sign = (claims: Omit<SnapshotClaims, "issuedAt" | "expiresAt">, now = Date.now()) => {
      if (settings === undefined || key === undefined) return Effect.succeed(Option.none<string>())
      const iat = Math.floor(now / 1000)
      return Effect.promise(() =>
        new SignJWT({
          pid: claims.policyId,
          fp: claims.fingerprint,
          rev: claims.revision,
          cc: claims.country,
          rg: claims.region,
          gpc: claims.gpc
        })
          .setProtectedHeader({ alg: "HS256", typ: "JWT" })
          .setIssuer(settings.issuer)
          .setAudience(settings.audience)
          .setIssuedAt(iat)
          .setExpirationTime(iat + settings.ttlSeconds)
          .sign(key)
      ).pipe(Effect.map(Option.some))
    }

    const verify = (token: string): Effect.Effect<SnapshotClaims, PolicySnapshotInvalid> =>
      Effect.gen(function*() {
        if (settings === undefined || key === undefined) {
          return yield* Effect.fail(invalid("Policy snapshot signing is not configured on this backend"))
        }
        const unverified = yield* Effect.try({
          try: () => decodeJwt(token),
          catch: () => invalid("Malformed policy snapshot token")
        })
        if (typeof unverified.iat !== "number")
          return yield* Effect.fail(invalid("Policy snapshot token has no issue time"))
        // Expiry is judged against givenAt and the replay window by the caller, so verify "as of" issue time.
        const { payload } = yield* Effect.tryPromise({
          try: () =>
            jwtVerify(token, key, {
              algorithms: ["HS256"],
              issuer: settings.issuer,
              audience: settings.audience,
              currentDate: new Date(unverified.iat! * 1000)
            }),
          catch: () => invalid("Policy snapshot token does not verify")
        })
        const claims = readClaims(payload)
        if (claims === undefined) return yield* Effect.fail(invalid("Policy snapshot token claims are incomplete"))
        return claims
      })

    return { enabled: settings !== undefined, settings, sign, verify } as const
  })
}) {}
