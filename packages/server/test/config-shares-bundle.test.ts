import Database from "better-sqlite3"
import { realpathSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { afterEach, describe, expect, it } from "vitest"
import { postCookieSave } from "../../backend/test/support/consent-saves.js"
import { killChildren, run, serve, tempDir } from "./support/svc-process.js"

afterEach(killChildren)

const nodeModules = fileURLToPath(new URL("../../../node_modules", import.meta.url))
/** The URLs Node gives the modules of @svc/backend's and effect's own builds (symlinks resolved). */
const backendDist = `${pathToFileURL(realpathSync(join(nodeModules, "@svc/backend"))).href}/dist/`
const effectPackage = `${pathToFileURL(realpathSync(join(nodeModules, "effect"))).href}/`

/**
 * A project whose config imports values from @svc/backend: defineConfig and a layer-valued export
 * (`sqlClientLayer`, for `database: { layer }`). Its node_modules is the repo's, so Node could load
 * the packages from there; `NODE_DEBUG=esm` makes Node name every module it loads.
 */
const project = (file: string) => {
  const cwd = tempDir()
  symlinkSync(nodeModules, join(cwd, "node_modules"), "dir")
  writeFileSync(
    join(cwd, file),
    `import { defineConfig, resolveOptions, sqlClientLayer } from "@svc/backend"\n` +
      `const { database } = resolveOptions({ database: { dialect: "sqlite", url: ${
        JSON.stringify(join(cwd, "app.db"))
      } } })\n` +
      `export default defineConfig({ database: { layer: sqlClientLayer(database) }, version: "9.9.9-shared" })\n`
  )
  return cwd
}

describe("a config's imports of @svc/backend", () => {
  it("in a .ts config are the running bundle's: it serves on the layer it exported, and Node loads neither @svc/backend nor effect", async () => {
    const cwd = project("svc.config.ts")
    const { url, output } = await serve(cwd, [], { NODE_DEBUG: "esm" })
    expect(output()).toContain("custom SqlClient layer")
    expect((await (await fetch(`${url}/status`)).json()).version).toBe("9.9.9-shared")
    const saved = await postCookieSave(url, { subjectId: "sub_shared_bundle_1" })
    expect(saved.status).toBe(200)
    const db = new Database(join(cwd, "app.db"), { readonly: true })
    try {
      expect(db.prepare("SELECT COUNT(*) AS n FROM svc_subjects WHERE id = 'sub_shared_bundle_1'").get()).toEqual({
        n: 1
      })
    } finally {
      db.close()
    }
    // Node printed the modules it loaded (the config itself among them)...
    expect(output()).toMatch(/^ESM \d+: /m)
    // ...and none of @svc/backend's build nor of the effect package: nothing is loaded twice.
    expect(output()).not.toContain(backendDist)
    expect(output()).not.toContain(effectPackage)
  })

  it("that the running svc does not export fail to load, with the file, line and column named", async () => {
    const cwd = tempDir()
    writeFileSync(
      join(cwd, "svc.config.ts"),
      `import { defineConfig, notAnExport } from "@svc/backend"\nexport default defineConfig(notAnExport)\n`
    )
    const result = await run(["serve", "--port", "0"], cwd)
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(
      `svc: cannot load the config file ${
        join(cwd, "svc.config.ts")
      }:1:24: No matching export in "svc-running-bundle:@svc/backend" for import "notAnExport"`
    )
  })

  it("in a .mjs config are Node's (plain imports): the probe above sees the package's build load", async () => {
    const { output } = await serve(project("svc.config.mjs"), [], { NODE_DEBUG: "esm" })
    expect(output()).toContain(`${backendDist}src/index.js`)
    expect(output()).toContain(effectPackage)
  })
})
