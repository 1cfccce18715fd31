// Fast checks on the package manifests (the slow install test proves the tarballs work).
import { readFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { describe, expect, it } from "vitest"
import { PACKAGE_VERSION } from "../../packages/backend/src/config/validate.js"
import { checkManifests, PUBLISHED } from "../../scripts/pack-all.js"

const root = resolve(import.meta.dirname, "../..")
const manifest = (dir: string) =>
  JSON.parse(readFileSync(join(root, "packages", dir, "package.json"), "utf8")) as Record<string, any>

describe("package manifests", () => {
  it("move together, pin their siblings to that version, and @svc/server declares what its bundle imports", () => {
    expect(checkManifests()).toEqual([])
  })

  it("carry what a registry and a user need", () => {
    for (const dir of PUBLISHED) {
      const pkg = manifest(dir)
      expect(pkg, dir).toMatchObject({
        type: "module",
        license: "Apache-2.0",
        engines: { node: ">=20.19" },
        repository: { type: "git", directory: `packages/${dir}` },
        publishConfig: { tag: "alpha" }
      })
      expect(pkg.private, dir).toBeUndefined()
      // Workspace-only source conditions point at files the tarball ships (pack:all checks the rest).
      for (const entry of Object.values(pkg.exports) as Array<string | Record<string, string>>) {
        if (typeof entry === "string") continue
        if (entry["@svc/source"] !== undefined)
          expect(
            pkg.files.some((f: string) => entry["@svc/source"]!.startsWith(`./${f.replace(/\/$/, "")}`)),
            `${dir}: ${entry["@svc/source"]}`
          ).toBe(true)
        expect(Object.keys(entry).at(-1), `${dir}: default last`).toBe("default")
      }
    }
    expect(manifest("server").bin).toEqual({ svc: "./bin/svc.js" })
  })

  it("the backend's default version is the package version", () => {
    expect(PACKAGE_VERSION).toBe(manifest("backend").version)
  })
})
