import Database from "better-sqlite3"
import { parseSignerKey, parseVerifierKey } from "@svc/schema/transparency"
import { statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { postCookieSave } from "../../backend/test/support/consent-saves.js"
import { demoLogSigningKey } from "../src/demo.js"
import { killChildren, run, serve, tempDir } from "./support/svc-process.js"

afterEach(killChildren)

describe("svc keys log", () => {
  it("prints a new note signer key and its verifier key", async () => {
    const printed = await run(["keys", "log", "--name", "consent.example.com/log"], tempDir())
    expect(printed.code).toBe(0)
    const [, signerKey, , verifierKey] = printed.stdout.trim().split("\n")
    const signer = parseSignerKey(signerKey!)
    expect(signer?.name).toBe("consent.example.com/log")
    expect(signer?.verifierKey).toBe(verifierKey)
    expect(parseVerifierKey(verifierKey!)).toBeDefined()
    const again = await run(["keys", "log"], tempDir())
    expect(again.stdout).not.toContain(signerKey)
    expect((await run(["keys", "nope"], tempDir())).code).toBe(1)
  })

  it("the demo keeps its log key beside its database, owner-only", () => {
    const db = join(tempDir(), "demo.db")
    const key = demoLogSigningKey(db)
    expect(parseSignerKey(key)).toBeDefined()
    expect(statSync(`${db}.log-key`).mode & 0o777).toBe(0o600)
    expect(demoLogSigningKey(db)).toBe(key)
    expect(demoLogSigningKey(":memory:")).not.toBe(demoLogSigningKey(":memory:"))
  })
})

describe("svc verify", () => {
  it("passes on an intact log and fails naming the consent id edited in SQL", async () => {
    const cwd = tempDir()
    const keys = (await run(["keys", "log", "--name", "verify.test/log"], cwd)).stdout.trim().split("\n")
    const file = join(cwd, "svc.db")
    writeFileSync(
      join(cwd, "svc.config.json"),
      JSON.stringify({
        database: { dialect: "sqlite", url: file },
        transparencyLog: { signingKey: keys[1], checkpointIntervalSeconds: 1 }
      })
    )
    const { url } = await serve(cwd)
    const saved: Array<string> = []
    for (let i = 0; i < 3; i++) {
      const answer = await postCookieSave(url, { givenAt: Date.now() - 1000 + i })
      expect(answer.status).toBe(200)
      saved.push(String(answer.body.consentId))
    }
    // A checkpoint covering the three saves.
    const deadline = Date.now() + 15_000
    while (Number((await (await fetch(`${url}/log/checkpoint`)).text()).split("\n")[1] ?? 0) < 3) {
      if (Date.now() > deadline) throw new Error("no checkpoint of 3 records")
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    const intact = await run(["verify"], cwd)
    expect(intact.stdout).toMatch(/svc verify: ok, 3 records and \d+ checkpoints match/)
    expect(intact.code).toBe(0)

    const db = new Database(file)
    db.prepare("UPDATE svc_consents SET domain = 'elsewhere.example' WHERE id = ?").run(saved[1])
    db.close()
    const tampered = await run(["verify", "--key", keys[3]!], cwd)
    expect(tampered.code).toBe(1)
    expect(tampered.stdout).toContain(`consent ${saved[1]}: its row no longer makes leaf`)
    expect(tampered.stdout).toMatch(/svc verify: FAILED/)

    const otherKey = (await run(["keys", "log", "--name", "verify.test/log"], cwd)).stdout.trim().split("\n")[3]!
    const wrongKey = await run(["verify", "--key", otherKey], cwd)
    expect(wrongKey.code).toBe(1)
    expect(wrongKey.stdout).toMatch(/checkpoint \d+: its signature does not verify/)
  })
})
