// Every package svc runs on must run on the oldest Node.js svc says it supports: the installed
// tree (as `npm query` reads it from node_modules) is checked package by package against the root
// manifest's `engines.node`, so a dependency update that needs a newer Node fails here, not at a
// user's `npm install` (where npm only warns).
import { execFileSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { minVersion, satisfies, validRange } from "semver"
import { describe, expect, it } from "vitest"

const root = resolve(import.meta.dirname, "../..")

interface InstalledPackage {
  readonly name?: string
  readonly version?: string
  readonly location: string
  readonly dev?: boolean
  readonly engines?: { readonly node?: string }
}

const installed = (): Array<InstalledPackage> => {
  const json = execFileSync("npm", ["query", "*"], { cwd: root, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 })
  return JSON.parse(json) as Array<InstalledPackage>
}

/**
 * `engines.node` problems for the given minimum Node version: of the packages a production install
 * brings, or with `dev` of every installed package (what `npm ci` in a clone warns about).
 */
const enginesProblems = (packages: ReadonlyArray<InstalledPackage>, minimum: string, dev = false): Array<string> =>
  packages.filter((pkg) => (dev || pkg.dev !== true) && pkg.location !== "" && pkg.engines?.node !== undefined)
    .flatMap((pkg) => {
      const range = pkg.engines!.node!
      const where = `${pkg.name}@${pkg.version} (${pkg.location})`
      if (validRange(range) === null) return [`${where}: engines.node "${range}" is not a range`]
      return satisfies(minimum, range) ? [] : [`${where}: engines.node "${range}" excludes Node.js ${minimum}`]
    })

describe("dependency engines", () => {
  const rootRange = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { engines: { node: string } })
    .engines.node
  const minimum = minVersion(rootRange)!.version
  const packages = installed()

  it("every production dependency admits the root's minimum Node.js version", () => {
    expect(minimum).toBe("20.19.0")
    // The tree holds svc's own runtime dependencies (not only dev tools): the check has something to check.
    const production = packages.filter((pkg) => pkg.dev !== true).map((pkg) => pkg.name)
    expect(production).toEqual(expect.arrayContaining(["effect", "@nats-io/nuid", "better-sqlite3", "pg", "mysql2"]))
    expect(enginesProblems(packages, minimum)).toEqual([])
  })

  it("so does every development dependency, so npm ci in a clone on that version warns of none", () => {
    expect(packages.filter((pkg) => pkg.dev === true).map((pkg) => pkg.name)).toContain("vitest")
    expect(enginesProblems(packages, minimum, true)).toEqual([])
  })

  it("names a package whose range excludes that version", () => {
    const nuid3 = { name: "@nats-io/nuid", version: "3.0.0", location: "node_modules/@nats-io/nuid" }
    expect(enginesProblems([{ ...nuid3, engines: { node: ">= 22.x" } }], minimum)).toEqual([
      `@nats-io/nuid@3.0.0 (node_modules/@nats-io/nuid): engines.node ">= 22.x" excludes Node.js 20.19.0`
    ])
    expect(enginesProblems([{ ...nuid3, engines: { node: ">= 18.x" } }], minimum)).toEqual([])
    const devOnly = { ...nuid3, dev: true, engines: { node: ">=22" } }
    expect(enginesProblems([devOnly], minimum)).toEqual([])
    expect(enginesProblems([devOnly], minimum, true)).toHaveLength(1)
  })
})
