// Which backend the browser tests run against. The real server (`startServer` from @svc/server)
// is used as soon as its /init answers; until then the node:http fake stands in.
// SVC_E2E_BACKEND=real makes an unavailable real server an error; =fake forces the fake.
import { startFakeBackend } from "./fake-backend.js"
import { testPolicyRules, testVendors } from "./policy-rules.js"

export interface Backend {
  kind: "real" | "fake"
  url: string
  close(): Promise<void>
}

type StartServer = (
  options: Record<string, unknown>,
  start: { port?: number; host?: string }
) => Promise<{ url: string; close(): Promise<void> }>

const startReal = async (scriptConfig: Record<string, unknown>): Promise<Backend | string> => {
  let startServer: StartServer | undefined
  try {
    const specifier = "@svc/server"
    startServer = ((await import(specifier)) as { startServer?: StartServer }).startServer
  } catch (error) {
    return `@svc/server could not be loaded: ${String(error)}`
  }
  if (typeof startServer !== "function") return "@svc/server does not export startServer"
  const server = await startServer(
    {
      database: { dialect: "sqlite", url: ":memory:" },
      trustedOrigins: ["*"],
      // Signing on, so /init issues the policySnapshotToken the saves carry back.
      policySnapshot: { signingKey: "browser-e2e-policy-snapshot-signing-key-0123456789" },
      manifest: { policyRules: testPolicyRules, iab: { enabled: true, cmpId: 12 }, vendors: testVendors },
      script: { config: scriptConfig }
    },
    { port: 0, host: "127.0.0.1" }
  )
  const probe = await fetch(`${server.url}/init?contract=1&country=DE`).catch(() => undefined)
  const body = probe?.ok ? ((await probe.json()) as { policyResolution?: { status?: string } }) : undefined
  if (body?.policyResolution?.status !== "matched") {
    await server.close()
    return `the real server's /init is not usable yet (status ${probe?.status ?? "network error"})`
  }
  return { kind: "real", url: server.url, close: () => server.close() }
}

/** The IAB test needs a vendor list in /init; the fake serves one when the backend in use does not. */
export const backendWithGvl = async (backend: Backend, scriptConfig: Record<string, unknown>): Promise<Backend | undefined> => {
  const response = await fetch(`${backend.url}/init?contract=1&country=FR`)
  const body = (await response.json()) as { gvl?: unknown }
  if (body.gvl !== undefined) return undefined
  console.warn("browser e2e: the IAB test uses the fake backend (the backend's /init carries no gvl)")
  return startFakeBackend(scriptConfig)
}

export const startBackend = async (scriptConfig: Record<string, unknown>): Promise<Backend> => {
  const choice = process.env.SVC_E2E_BACKEND
  if (choice !== "fake") {
    const real = await startReal(scriptConfig)
    if (typeof real !== "string") return real
    if (choice === "real") throw new Error(real)
    console.warn(`browser e2e: using the fake backend (${real})`)
  }
  return startFakeBackend(scriptConfig)
}
