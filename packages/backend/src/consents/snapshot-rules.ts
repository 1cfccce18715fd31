import { PolicySnapshotExpired, StalePolicy } from "@svc/api"
import type { PolicyPack, RuntimePolicySource } from "@svc/schema"
import { OptionalCategories } from "@svc/schema"
import { Either } from "effect"
import type { SnapshotClaims } from "../policy/snapshots.js"
import type { ActDecision } from "./act.js"

/** Slack allowed between `givenAt` and the token's lifetime (spec "Late saves" rule 2). */
export const GIVEN_AT_SLACK_MS = 10 * 60 * 1000

export interface SnapshotVerdict {
  readonly source: RuntimePolicySource
  readonly pack: PolicyPack
  /** The GPC signal `/init` saw when it issued the token. */
  readonly gpc: boolean
}

/**
 * Categories the act grants that the rule does not offer (`necessary` is always offered). A rule of
 * model `none` asks nothing and grants everything, so no grant contradicts it.
 */
export const grantedOutside = (decision: ActDecision, pack: PolicyPack): ReadonlyArray<string> => {
  if (pack.model === "none") return []
  const offered = new Set<string>(pack.categories)
  const granted = new Set<string>()
  for (const category of OptionalCategories) {
    if (decision.preferences?.[category] === true || decision.receipts[category]?.value === true) granted.add(category)
  }
  return [...granted].filter((category) => !offered.has(category))
}

/**
 * Rules 2 to 4 of "Late saves" for a verified token (rule 1), plus the decision check:
 * - `givenAt` within [issue - 10 min, expiry + 10 min], else POLICY_SNAPSHOT_EXPIRED;
 * - arriving after expiry makes it a late save, refused once `replayWindowSeconds` have passed
 *   since expiry (0 refuses every late save);
 * - the named rule still in the manifest under the same fingerprint, else STALE_POLICY policy-changed;
 * - the act grants no category the rule does not offer, else STALE_POLICY decision-mismatch.
 */
export const judgeSnapshot = (input: {
  readonly claims: SnapshotClaims
  readonly givenAt: number
  readonly now: number
  readonly replayWindowSeconds: number
  readonly pack: PolicyPack | undefined
  readonly decision: ActDecision
  readonly checkDecision: boolean
}): Either.Either<SnapshotVerdict, PolicySnapshotExpired | StalePolicy> => {
  const { claims, givenAt, now } = input
  const issuedAt = claims.issuedAt * 1000
  const expiresAt = claims.expiresAt * 1000
  if (givenAt < issuedAt - GIVEN_AT_SLACK_MS || givenAt > expiresAt + GIVEN_AT_SLACK_MS) {
    return Either.left(new PolicySnapshotExpired({ message: "givenAt lies outside the policy snapshot's lifetime" }))
  }
  const late = now > expiresAt
  if (late && now > expiresAt + input.replayWindowSeconds * 1000) {
    return Either.left(
      new PolicySnapshotExpired({ message: "The save arrived after the policy snapshot's replay window" })
    )
  }
  const pack = input.pack
  if (pack === undefined || pack.fingerprint !== claims.fingerprint) {
    return Either.left(
      new StalePolicy({
        message: "The policy named by the snapshot is no longer in the manifest under that fingerprint",
        reason: "policy-changed"
      })
    )
  }
  if (input.checkDecision) {
    const outside = grantedOutside(input.decision, pack)
    if (outside.length > 0) {
      return Either.left(
        new StalePolicy({
          message: `The save grants categories the policy does not offer: ${outside.join(", ")}`,
          reason: "decision-mismatch"
        })
      )
    }
  }
  return Either.right({ source: late ? "snapshot_token_replayed" : "snapshot_token", pack, gpc: claims.gpc })
}
