import type { MatchedBy, PolicyPack, ResolutionStatus } from "@svc/schema"
import { Effect } from "effect"
import { PolicyManifest } from "./manifest.js"

/** The only policy contract this backend speaks. */
export const POLICY_CONTRACT = "1"

/** Why a resolution failed (see docs/adr/0044-init-resolution-and-response.md). */
export type ResolutionFailureReason = "unsupported-contract" | "insufficient-inputs"

/**
 * The outcome of resolving a visitor's location against the manifest: the matched rule and how it
 * matched, or why none applies.
 *
 * @example
 * ```ts
 * import { PolicyResolver, type Resolution } from "@svc/backend"
 * import { Effect } from "effect"
 *
 * const label = (resolution: Resolution) =>
 *   resolution.status === "matched"
 *     ? `${resolution.pack.id} (by ${resolution.matchedBy})`
 *     : `${resolution.status}${resolution.reason === null ? "" : `: ${resolution.reason}`}`
 * const californian = Effect.map(PolicyResolver, (resolver) =>
 *   label(resolver.resolve({ contract: undefined, country: "US", region: "CA" })))
 * ```
 */
export type Resolution =
  | { readonly status: "matched"; readonly pack: PolicyPack; readonly matchedBy: MatchedBy; readonly key: string }
  | {
    readonly status: Exclude<ResolutionStatus, "matched">
    readonly reason: ResolutionFailureReason | null
    readonly key: string
  }

export interface ResolverInputs {
  /** The contract the client reads; `undefined` when it sent none (read as contract 1). */
  readonly contract: string | undefined
  readonly country: string | null
  /** Subdivision code alone (`CA`). */
  readonly region: string | null
}

const unconfigured: Resolution = { status: "unconfigured", reason: null, key: "unconfigured" }
const unsupported: Resolution = { status: "failed", reason: "unsupported-contract", key: "failed:unsupported-contract" }
const insufficient: Resolution = { status: "failed", reason: "insufficient-inputs", key: "failed:insufficient-inputs" }
const noMatch: Resolution = { status: "no-match", reason: null, key: "no-match" }

/**
 * Picks the rule for a location: region, then country, then `fallback` (only when the country is
 * unknown), then `default`; inside a level the first rule in manifest order wins. The levels are
 * indexed once, so a resolution is a few map lookups.
 *
 * @example
 * ```ts
 * import { PolicyResolver, resolveOptions, SvcConfig } from "@svc/backend"
 * import type { PolicyRule } from "@svc/schema"
 * import { Effect, Layer } from "effect"
 *
 * // CI prints which rule each market gets under the config about to be deployed.
 * const policyRules = [
 *   { id: "eu", match: { countries: ["DE", "FR"] }, model: "opt-in", categories: ["marketing"] },
 *   { id: "california", match: { regions: ["US-CA"] }, model: "opt-out", categories: ["marketing"] }
 * ] satisfies ReadonlyArray<PolicyRule>
 * const config = resolveOptions({ database: { dialect: "sqlite", url: ":memory:" }, manifest: { policyRules } })
 * const markets = Effect.map(PolicyResolver, (resolver) =>
 *   [["DE", null], ["US", "CA"], ["US", "NY"]].map(([country = null, region = null]) => {
 *     const resolution = resolver.resolve({ contract: undefined, country, region })
 *     return `${country} ${region ?? ""}: ${resolution.status === "matched" ? resolution.pack.id : resolution.status}`
 *   }))
 * const run = markets.pipe(Effect.provide(PolicyResolver.Default), Effect.provide(Layer.succeed(SvcConfig, config)))
 * ```
 */
export class PolicyResolver extends Effect.Service<PolicyResolver>()("@svc/backend/PolicyResolver", {
  effect: Effect.gen(function*() {
    const manifest = yield* PolicyManifest
    const matched = (pack: PolicyPack, matchedBy: MatchedBy): Resolution => ({
      status: "matched",
      pack,
      matchedBy,
      key: `matched:${pack.id}:${matchedBy}`
    })
    const byRegion = new Map<string, Resolution>()
    const byCountry = new Map<string, Resolution>()
    let defaultRule: Resolution | undefined
    let fallbackRule: Resolution | undefined
    for (const pack of manifest.rules) {
      for (const region of pack.match.regions ?? [])
        if (!byRegion.has(region)) byRegion.set(region, matched(pack, "region"))
      for (const country of pack.match.countries ?? []) {
        if (!byCountry.has(country)) byCountry.set(country, matched(pack, "country"))
      }
      if (pack.match.fallback === true) fallbackRule ??= matched(pack, "fallback")
      if (pack.match.default === true) defaultRule ??= matched(pack, "default")
    }
    const empty = manifest.rules.length === 0

    const resolve = (inputs: ResolverInputs): Resolution => {
      if (inputs.contract !== undefined && inputs.contract !== POLICY_CONTRACT) return unsupported
      if (empty) return unconfigured
      const { country, region } = inputs
      if (country !== null) {
        if (region !== null) {
          const r = byRegion.get(`${country}-${region}`)
          if (r !== undefined) return r
        }
        return byCountry.get(country) ?? defaultRule ?? noMatch
      }
      // Without a country only the fallback and default rules can apply.
      return fallbackRule ?? defaultRule ?? insufficient
    }

    return { resolve } as const
  }),
  dependencies: [PolicyManifest.Default]
}) {}
