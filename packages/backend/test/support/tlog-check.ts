import { execFileSync, spawnSync } from "node:child_process"
import { existsSync, mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

/**
 * The independent verifier: Go's own transparency-log code (golang.org/x/mod/sumdb/tlog for
 * RFC 9162 inclusion and consistency proofs, sumdb/note for C2SP signed notes), compiled from
 * `tlog-check/main.go`. It needs a Go toolchain and golang.org/x/mod in GOPATH (Debian:
 * `apt-get install golang-go golang-golang-x-mod-dev`); `undefined` when they are not there.
 */
const GOPATH = process.env.SVC_TEST_GOPATH ?? "/usr/share/gocode"

export interface TlogCheckInput {
  readonly verifierKey: string
  readonly checkpoints: ReadonlyArray<string>
  readonly inclusion: ReadonlyArray<
    {
      readonly index: number
      readonly size: number
      readonly leaf: string
      readonly path: ReadonlyArray<string>
      readonly root: string
    }
  >
  readonly consistency: ReadonlyArray<
    {
      readonly from: number
      readonly to: number
      readonly fromRoot: string
      readonly toRoot: string
      readonly proof: ReadonlyArray<string>
    }
  >
}

export const buildTlogCheck = ():
  | ((input: TlogCheckInput) => { readonly ok: boolean; readonly output: string })
  | undefined =>
{
  const go = spawnSync("go", ["version"])
  if (go.status !== 0 || !existsSync(join(GOPATH, "src/golang.org/x/mod/sumdb/tlog"))) return undefined
  const binary = join(mkdtempSync(join(tmpdir(), "svc-tlog-check-")), "tlog-check")
  const source = fileURLToPath(new URL("./tlog-check/main.go", import.meta.url))
  execFileSync("go", ["build", "-o", binary, source], {
    env: { ...process.env, GOPATH, GO111MODULE: "off", GOFLAGS: "", GOCACHE: join(tmpdir(), "svc-go-cache") },
    cwd: tmpdir()
  })
  return (input) => {
    const run = spawnSync(binary, [], { input: JSON.stringify(input), encoding: "utf8" })
    return { ok: run.status === 0, output: `${run.stdout}${run.stderr}` }
  }
}
