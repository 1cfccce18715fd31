// Script-tag start-up: embedded defaults, page config, the queued commands, then `window.svc`.
import { mergeConfig, resolveBackendURL } from "./config.js"
import { createRuntime, type Extension, type SvcApi } from "./runtime.js"
import { memoryStore, pageStore, type KeyValueStore } from "./storage.js"

declare const __SVC_VERSION__: string

const sessionStore = (): KeyValueStore => {
  try {
    const s = window.sessionStorage
    s.getItem("svc.probe")
    return s
  } catch {
    return memoryStore()
  }
}

export const boot = (extensions: ReadonlyArray<Extension>): SvcApi | undefined => {
  const w = window
  const existing = w.svc
  // A second tag on the same page keeps the first runtime.
  if (existing !== undefined && !Array.isArray(existing) && typeof existing.save === "function") return existing
  const queued: Array<unknown> = Array.isArray(existing) ? existing.slice() : []
  const configs = queued.filter((c): c is [string, unknown] => Array.isArray(c) && c[0] === "config").map((c) => c[1])
  const embedded = w.__SVC_EMBEDDED__
  const config = mergeConfig(embedded?.config, w.svcConfig, ...configs)
  const script = document.currentScript
  const backendURL = resolveBackendURL(config, embedded, script instanceof HTMLScriptElement ? script.src : undefined)
  const { api, start } = createRuntime(
    {
      store: pageStore(),
      session: sessionStore(),
      fetch: (input, init) => fetch(input, init),
      now: () => Date.now(),
      random: (bytes) => crypto.getRandomValues(bytes),
      domain: location.hostname,
      gpc: navigator.globalPrivacyControl === true,
      setCookie: (value, maxAge) => {
        const secure = location.protocol === "https:" ? "; Secure" : ""
        document.cookie = value === undefined
          ? `svc_consent=; Max-Age=0; Path=/; SameSite=Lax${secure}`
          : `svc_consent=${encodeURIComponent(value)}; Max-Age=${maxAge}; Path=/; SameSite=Lax${secure}`
      },
      onOnline: (listener) => window.addEventListener("online", listener),
      later: (fn, ms) => void setTimeout(fn, ms)
    },
    config,
    backendURL,
    __SVC_VERSION__,
    extensions
  )
  w.svc = api
  // start() runs the extensions' setup synchronously, so queued UI commands find their methods.
  void start()
  for (const command of queued) api.push(command)
  return api
}
