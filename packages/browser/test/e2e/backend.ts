// The backend the browser tests run against: the real svc server (`startServer` from @svc/server)
// on an in-memory SQLite database, with policy snapshot signing and a GVL from a fixture file.
import { startServer } from "@svc/server"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { testGvl, testPolicyRules, testVendors } from "./policy-rules.js"

export interface Backend {
  url: string
  close(): Promise<void>
}

export const startBackend = async (scriptConfig: Record<string, unknown>): Promise<Backend> => {
  const gvlFile = join(mkdtempSync(join(tmpdir(), "svc-e2e-")), "gvl.json")
  writeFileSync(gvlFile, JSON.stringify(testGvl))
  const server = await startServer(
    {
      database: { dialect: "sqlite", url: ":memory:" },
      trustedOrigins: ["*"],
      // Signing on, so /init issues the policySnapshotToken the saves carry back.
      policySnapshot: { signingKey: "browser-e2e-policy-snapshot-signing-key-0123456789" },
      gvl: { file: gvlFile },
      manifest: { policyRules: testPolicyRules, iab: { enabled: true, cmpId: 12 }, vendors: testVendors },
      script: { config: scriptConfig },
      observability: { requests: "none" }
    },
    { port: 0, host: "127.0.0.1" }
  )
  return { url: server.url, close: () => server.close() }
}
