import { generateLogSignerKey, type SvcOptions } from "@svc/backend"
import { Predicate } from "effect"
import { randomBytes } from "node:crypto"
import { readFileSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { EEA } from "./eea.js"

/** Whether a write with flag `wx` failed because the file is there already. */
const isFileExists = (error: unknown) => Predicate.hasProperty(error, "code") && error.code === "EEXIST"

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error))

/** Countries where the GDPR (and the UK GDPR) applies: consent before any optional category. */
const EEA_AND_UK = [...EEA, "GB", "CH"]

/**
 * The demo's policy snapshot signing key: read from `<database file>.key`, or generated there on
 * first run (owner-only, mode 0600). An in-memory database gets a key for this process only.
 * The key is never printed.
 */
export const demoSigningKey = (databaseUrl: string): string => {
  if (databaseUrl === ":memory:") return randomBytes(32).toString("base64url")
  const path = `${databaseUrl}.key`
  try {
    // `wx`: two servers starting at once on the same file never write two different keys.
    writeFileSync(path, `${randomBytes(32).toString("base64url")}\n`, { mode: 0o600, flag: "wx" })
  } catch (error) {
    if (!isFileExists(error))
      throw new Error(`cannot write the demo signing key ${path}: ${messageOf(error)}`, { cause: error })
  }
  const key = readFileSync(path, "utf8").trim()
  if (Buffer.byteLength(key) < 32)
    throw new Error(`${path} holds no usable signing key; delete it to generate a new one`)
  return key
}

/**
 * The demo's transparency log signing key (a note signer key): read from `<database file>.log-key`,
 * or generated there on first run (owner-only, mode 0600), like the snapshot key. An in-memory
 * database gets a key for this process only. Its verifier key is public: `GET /log/key`.
 */
export const demoLogSigningKey = (databaseUrl: string): string => {
  const fresh = () => generateLogSignerKey("svc.localhost/demo-log").signerKey
  if (databaseUrl === ":memory:") return fresh()
  const path = `${databaseUrl}.log-key`
  try {
    writeFileSync(path, `${fresh()}\n`, { mode: 0o600, flag: "wx" })
  } catch (error) {
    if (!isFileExists(error)) {
      throw new Error(`cannot write the demo log signing key ${path}: ${messageOf(error)}`, { cause: error })
    }
  }
  const key = readFileSync(path, "utf8").trim()
  if (!key.startsWith("PRIVATE+KEY+"))
    throw new Error(`${path} holds no log signing key; delete it to generate a new one`)
  return key
}

/** A small Global Vendor List (three example vendors) shipped with the package for the IAB rule. */
export const demoGvlFile = (): string => createRequire(import.meta.url).resolve("@svc/server/demo/gvl.json")

const categories = ["measurement", "marketing", "functionality", "experience"] as const

/** The built-in manifest: the main policy shapes (EU opt-in, California opt-out, an IAB rule, a default). */
const builtInManifest: NonNullable<SvcOptions["manifest"]> = {
  appName: "svc demo",
  policyRules: [
    {
      id: "us-ca-opt-out",
      match: { regions: ["US-CA"] },
      model: "opt-out",
      categories,
      gpcDenies: ["marketing"]
    },
    {
      id: "eu-iab",
      match: { countries: ["FR"] },
      model: "iab",
      categories
    },
    {
      id: "eu-opt-in",
      match: { countries: EEA_AND_UK },
      model: "opt-in",
      categories,
      validityDays: 365
    },
    {
      id: "unknown-location",
      match: { fallback: true },
      model: "opt-in",
      categories
    },
    {
      id: "rest-of-world",
      match: { default: true },
      model: "opt-out",
      categories,
      gpcDenies: ["marketing"]
    }
  ],
  iab: { enabled: true, cmpId: 0 },
  vendors: [
    { id: "analytics", name: "Example Analytics", category: "measurement" },
    { id: "ads", name: "Example Ads", category: "marketing" }
  ]
}

/**
 * The options `svc` runs with when no config file gives them: the built-in manifest and the small
 * GVL on `database`. A SQLite file's policy snapshot and transparency log keys live next to it
 * (generated on first run) unless `given` says they come from elsewhere; on another database there
 * are none unless given. No trusted origins.
 */
export const builtInOptions = (
  database: { readonly dialect: "sqlite" | "postgres" | "mysql"; readonly url: string },
  given: { readonly snapshotKey: boolean; readonly logKey: boolean }
): SvcOptions => {
  const sqlite = database.dialect === "sqlite"
  return {
    database,
    ...(sqlite && !given.snapshotKey ? { policySnapshot: { signingKey: demoSigningKey(database.url) } } : {}),
    ...(sqlite && !given.logKey ? { transparencyLog: { signingKey: demoLogSigningKey(database.url) } } : {}),
    gvl: { file: demoGvlFile() },
    manifest: builtInManifest
  }
}

/**
 * What `svc serve` runs with no config file and no option in the environment: the built-in
 * manifest on an embedded SQLite file, browsers on this machine trusted. Policy snapshots are
 * signed, so every stored consent names the rule and fingerprint it was given under.
 *
 * @example
 * ```ts
 * import { demoOptions, startServer } from "@svc/server"
 *
 * // End-to-end tests of a banner integration: the demo backend in memory, on a free port.
 * const server = await startServer(demoOptions(":memory:"), { port: 0, host: "127.0.0.1", demoPage: true })
 * process.env.SVC_URL = server.url // e.g. http://127.0.0.1:54213, with the banner page at /demo
 * export const teardown = () => server.close()
 * ```
 */
export const demoOptions = (databaseUrl: string): SvcOptions => ({
  ...builtInOptions({ dialect: "sqlite", url: databaseUrl }, { snapshotKey: false, logKey: false }),
  trustedOrigins: ["localhost", "127.0.0.1", "[::1]"]
})
