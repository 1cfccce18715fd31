// The headless runtime behind `window.svc`: resolves the policy, keeps the consent state, saves acts.
import type { SvcConfig } from "./config.js"
import { randomToken, subjectId as storedSubjectId } from "./ids.js"
import { initURL, parseExperiment, type Journey } from "./init-request.js"
import {
  deriveState,
  gpcDenied,
  isMatched,
  optOutCategories,
  preferencesOf,
  shouldPrompt,
  validityMs
} from "./policy.js"
import { isList, isString, propertyOf } from "./guards.js"
import { createReplayQueue } from "./replay-queue.js"
import { KEYS, readJson, writeJson, type KeyValueStore } from "./storage.js"
import { isPendingIdentity, isStoredConsent, type QueuedSave } from "./stored.js"
import { sendJson, type Delivery, type Fetch } from "./transport.js"
import { buildSaveBody } from "./save-request.js"
import {
  type Action,
  CATEGORIES,
  type Category,
  type Choices,
  type ConsentState,
  type InitResponse,
  type SaveOptions,
  type SaveOutcome,
  type StoredConsent
} from "./types.js"

export interface RuntimeEnv {
  store: KeyValueStore
  /** Per-tab storage for dismissals. */
  session: KeyValueStore
  fetch: Fetch
  now(): number
  random(bytes: Uint8Array): Uint8Array
  domain: string
  /** `navigator.globalPrivacyControl`. */
  gpc: boolean
  setCookie(value: string | undefined, maxAgeSeconds: number): void
  onOnline(listener: () => void): void
  /** Runs `fn` later (setTimeout); absent in tests that drive the queue by hand. */
  later?(fn: () => void, ms: number): void
}

export type ConsentEvent = "subscribe" | "hydrate" | "resolve" | "save" | "dismiss" | "reset"
export type Listener = (state: ConsentState, event: ConsentEvent) => void

export interface KnownVendor {
  id: string
  name: string
  /** Category the vendor follows; `null` for IAB vendors, decided one by one. */
  category: Category | "necessary" | null
}

export interface IdentifyOutcome {
  ok: boolean
  /** The subject does not exist yet: the link travels with the next save. */
  pending?: boolean
  status?: number
  code?: string
  subject?: unknown
}

export interface SvcApi {
  readonly version: string
  readonly backendURL: string
  readonly config: SvcConfig
  readonly hosting: "self-hosted" | "managed" | undefined
  readonly init: InitResponse | null
  readonly consent: ConsentState
  readonly subjectId: string
  readonly ready: Promise<SvcApi>
  has(category: Category | "necessary"): boolean
  subscribe(listener: Listener): () => void
  acceptAll(options?: SaveOptions): Promise<SaveOutcome>
  rejectAll(options?: SaveOptions): Promise<SaveOutcome>
  optOut(options?: SaveOptions): Promise<SaveOutcome>
  save(choices: Choices, options?: SaveOptions): Promise<SaveOutcome>
  identify(
    externalId: string,
    options?: { identityToken?: string; identityProvider?: string }
  ): Promise<IdentifyOutcome>
  flush(): Promise<void>
  reset(): void
  push(...commands: ReadonlyArray<unknown>): number
  [key: string]: unknown
}

/** What the UI and IAB layers get to work with. */
export interface RuntimeContext {
  api: SvcApi
  config: SvcConfig
  init(): InitResponse | null
  state(): ConsentState
  shouldPrompt(): boolean
  knownVendors(): ReadonlyArray<KnownVendor>
  gpcDenied(): ReadonlyArray<Category>
  /** The prompt became visible: the start of time-to-decision. */
  markShown(): void
  /** The visitor closed the prompt without choosing: no save, remembered for this tab. */
  dismiss(): void
  dismissed(): boolean
  emit(event: ConsentEvent): void
}

export interface Extension {
  setup?(ctx: RuntimeContext): void
  ready?(ctx: RuntimeContext): void
  beforeStore?(stored: StoredConsent, ctx: RuntimeContext): void
}

export const createRuntime = (
  env: RuntimeEnv,
  config: SvcConfig,
  backendURL: string,
  version: string,
  extensions: ReadonlyArray<Extension> = []
) => {
  const listeners = new Set<Listener>()
  let init: InitResponse | null = null
  const localGpc = config.gpc ?? env.gpc
  let stored = readJson(env.store, KEYS.consent, isStoredConsent)
  let state = deriveState(null, stored, localGpc, env.now())
  let shownAt: number | undefined
  let dismissedHere = false
  let resolveReady: (api: SvcApi) => void = () => {}
  const ready = new Promise<SvcApi>((resolve) => (resolveReady = resolve))

  const journey: Journey | undefined = config.journey === false
    ? undefined
    : {
      id: config.journey ?? "jrn_" + randomToken(20, env.random),
      ...(config.journeyScope !== undefined ? { scope: config.journeyScope } : {}),
      stored: stored !== undefined && stored.expiresAt > env.now() ? "1" : "0"
    }

  const emit = (event: ConsentEvent): void => {
    for (const listener of Array.from(listeners)) {
      try {
        listener(state, event)
      } catch (error) {
        setTimeout(() => {
          throw error
        })
      }
    }
  }
  const gpcNow = (): boolean => (init?.gpc ?? false) || localGpc
  const recompute = (event: ConsentEvent): void => {
    state = deriveState(init, stored, gpcNow(), env.now())
    emit(event)
  }

  const knownVendors = (): Array<KnownVendor> => {
    const out: Array<KnownVendor> = []
    const seen = new Set<string>()
    const add = (v: KnownVendor) => {
      if (!seen.has(v.id)) {
        seen.add(v.id)
        out.push(v)
      }
    }
    if (init?.gvl && init.policy?.model === "iab") {
      for (const key of Object.keys(init.gvl.vendors)) {
        const v = init.gvl.vendors[key]!
        if (!v.deletedDate) add({ id: String(v.id), name: v.name, category: null })
      }
    }
    // A page's vendor names its category as text: one the runtime does not know is left out, as no
    // category's choice could cover it.
    for (const v of [...(init?.vendors ?? []), ...(config.vendors ?? [])]) {
      const category = v.category === "necessary" ? v.category : CATEGORIES.find((c) => c === v.category)
      if (category !== undefined) add({ id: v.id, name: v.name, category })
    }
    return out
  }

  const pendingIdentity = () => readJson(env.store, KEYS.identity, isPendingIdentity)

  const identify: SvcApi["identify"] = async (externalId, options = {}) => {
    const body = {
      externalId,
      ...(options.identityProvider !== undefined ? { identityProvider: options.identityProvider } : {}),
      ...(options.identityToken !== undefined ? { identityToken: options.identityToken } : {})
    }
    const id = storedSubjectId(env.store, env.random)
    const d = await sendJson(env.fetch, "PATCH", `${backendURL}/subjects/${encodeURIComponent(id)}`, body)
    if (d.kind === "stored") {
      writeJson(env.store, KEYS.identity, undefined)
      return { ok: true, status: d.status, subject: propertyOf(d.body, "subject") }
    }
    if (d.kind === "retry" || d.status === 404) {
      writeJson(env.store, KEYS.identity, body)
      return { ok: false, pending: true, status: d.status }
    }
    return { ok: false, status: d.status, ...(d.code !== undefined ? { code: d.code } : {}) }
  }

  // While the page stays open and online, an undelivered save is tried again after a growing pause
  // (30 s, 1 min, 2 min ... up to 10 min); `online` events and the next page load try at once.
  let retryTimer = false
  const scheduleRetry = (attempts: number): void => {
    if (retryTimer || env.later === undefined) return
    retryTimer = true
    env.later(() => {
      retryTimer = false
      void queue.flush()
    }, Math.min(30_000 * 2 ** Math.max(0, attempts - 1), 600_000))
  }

  const onDelivered = (entry: QueuedSave, delivery: Delivery): void => {
    if (delivery.kind === "retry") scheduleRetry(entry.attempts + 1)
    if (delivery.kind !== "stored") return
    const identity = pendingIdentity()
    if (identity === undefined) return
    if (entry.body.externalSubjectId === identity.externalId) writeJson(env.store, KEYS.identity, undefined)
    else void identify(identity.externalId, identity)
  }
  const queue = createReplayQueue(env.store, env.fetch, env.now, onDelivered)

  const save = async (choices: Choices, options: SaveOptions = {}): Promise<SaveOutcome> => {
    // The click time is the moment of consent, even when /init has not answered yet.
    const givenAt = env.now()
    await ready
    const policy = isMatched(init) ? init.policy : null
    const gpc = gpcNow()
    const denied = gpc ? gpcDenied(policy) : []
    const offered = policy?.categories ?? []
    const preferences = preferencesOf((c) =>
      denied.includes(c) ? false : offered.includes(c) ? (choices[c] ?? state.preferences[c]) : state.preferences[c]
    )
    const action: Action = options.action ?? "custom"
    const vendors: Record<string, boolean> = {}
    for (const v of knownVendors()) {
      const explicit = choices.vendors?.[v.id]
      if (v.category === "necessary") vendors[v.id] = true
      else if (v.category === null) {
        vendors[v.id] = explicit ??
          (action === "accept_all" ? true : action === "reject_all" ? false : state.vendors[v.id] ?? false)
      } else vendors[v.id] = preferences[v.category] && explicit !== false
    }
    const next: StoredConsent = {
      v: 1,
      policyId: policy?.id ?? null,
      fingerprint: policy?.fingerprint ?? null,
      preferences,
      givenAt,
      action,
      expiresAt: givenAt + validityMs(policy),
      vendors
    }
    for (const ext of extensions) ext.beforeStore?.(next, ctx)
    stored = next
    writeJson(env.store, KEYS.consent, next)
    env.setCookie(consentCookie(next), Math.floor(validityMs(policy) / 1000))
    recompute("save")
    const body = buildSaveBody({
      domain: config.domain ?? env.domain,
      subjectId: storedSubjectId(env.store, env.random),
      givenAt,
      preferences,
      offered,
      vendors,
      policySnapshotToken: init?.policySnapshotToken,
      journey: init?.journey ? { ...journey, ...stripNull(init.journey) } : journey,
      experiment: init?.experiment ?? parseExperiment(config.experiment),
      action,
      surface: options.surface ?? "api",
      shownAt,
      identity: pendingIdentity(),
      gppString: next.gppString
    })
    const delivery = await queue.submit(`${backendURL}/subjects`, body)
    if (delivery.kind === "stored") return { ok: true, status: delivery.status, body: delivery.body }
    if (delivery.kind === "retry") return { ok: false, queued: true }
    return {
      ok: false,
      queued: false,
      status: delivery.status,
      ...(delivery.code !== undefined ? { code: delivery.code } : {})
    }
  }

  const allChoices = (value: boolean): Choices => preferencesOf(() => value)

  const api: SvcApi = {
    version,
    backendURL,
    config,
    get hosting() {
      return init?.hosting
    },
    get init() {
      return init
    },
    get consent() {
      return state
    },
    get subjectId() {
      return storedSubjectId(env.store, env.random)
    },
    ready,
    has: (category) => category === "necessary" || state.preferences[category] === true,
    subscribe: (listener) => {
      listeners.add(listener)
      listener(state, "subscribe")
      return () => void listeners.delete(listener)
    },
    acceptAll: (options = {}) => save(allChoices(true), { surface: "api", ...options, action: "accept_all" }),
    rejectAll: (options = {}) => save(allChoices(false), { surface: "api", ...options, action: "reject_all" }),
    optOut: (options = {}) => {
      const policy = isMatched(init) ? init.policy : null
      const choices: Choices = {}
      for (const c of optOutCategories(policy)) choices[c] = false
      return save(choices, { surface: "api", ...options, action: "opt_out" })
    },
    save,
    identify,
    flush: () => queue.flush(),
    reset: () => {
      stored = undefined
      writeJson(env.store, KEYS.consent, undefined)
      env.setCookie(undefined, 0)
      env.session.removeItem(KEYS.dismissed)
      dismissedHere = false
      recompute("reset")
    },
    push: (...commands) => {
      for (const command of commands) runCommand(command)
      return 0
    }
  }

  const runCommand = (command: unknown): void => {
    try {
      if (typeof command === "function") command(api)
      else if (Array.isArray(command) && typeof command[0] === "string" && command[0] !== "config") {
        const fn = api[command[0]]
        if (typeof fn === "function") {
          const result: unknown = fn(...command.slice(1))
          if (result instanceof Promise) result.catch(() => {})
        }
      }
    } catch (error) {
      setTimeout(() => {
        throw error
      })
    }
  }

  const ctx: RuntimeContext = {
    api,
    config,
    init: () => init,
    state: () => state,
    shouldPrompt: () => shouldPrompt(init, state) && !ctx.dismissed(),
    knownVendors,
    gpcDenied: () => (gpcNow() ? gpcDenied(isMatched(init) ? init.policy : null) : []),
    markShown: () => {
      shownAt ??= env.now()
    },
    dismiss: () => {
      try {
        env.session.setItem(KEYS.dismissed, state.fingerprint ?? "")
      } catch {
        // Dismissal then lasts for this page view only.
      }
      dismissedHere = true
      emit("dismiss")
    },
    dismissed: () =>
      dismissedHere || (state.fingerprint !== null && env.session.getItem(KEYS.dismissed) === state.fingerprint),
    emit
  }

  const start = async (): Promise<void> => {
    for (const ext of extensions) ext.setup?.(ctx)
    if (state.status === "given") emit("hydrate")
    env.onOnline(() => void queue.flush())
    void queue.flush()
    try {
      const url = initURL(backendURL, config, {
        version,
        gpc: config.gpc ?? (env.gpc ? true : undefined),
        journey
      })
      const response = await env.fetch(url, { credentials: "omit" })
      if (!response.ok) throw new Error(`init answered ${response.status}`)
      const answer: unknown = await response.json()
      if (!isInitResponse(answer)) throw new Error("init answered an unknown shape")
      init = answer
    } catch {
      init = { policyResolution: { status: "failed", reason: "network" }, policy: null }
    }
    recompute("resolve")
    resolveReady(api)
    for (const ext of extensions) ext.ready?.(ctx)
  }

  return { api, ctx, start }
}

/**
 * `/init`'s answer as far as the runtime relies on it: a resolution with its status, and a policy
 * (a rule) or `null`; other fields are read with defaults. Anything else counts as no answer.
 */
const isInitResponse = (value: unknown): value is InitResponse =>
  isString(propertyOf(propertyOf(value, "policyResolution"), "status")) &&
  (propertyOf(value, "policy") === null || isList(propertyOf(propertyOf(value, "policy"), "categories")))

const COOKIE_CODES: Record<Category, string> = {
  measurement: "ms",
  marketing: "mk",
  functionality: "fn",
  experience: "ex"
}

/**
 * The `svc_consent` cookie, readable by the site's server: `1.<fingerprint>.<code><0|1>....<givenAt s>`,
 * with codes ms (measurement), mk (marketing), fn (functionality), ex (experience).
 */
export const consentCookie = (stored: StoredConsent): string =>
  [
    "1",
    stored.fingerprint ?? "",
    ...CATEGORIES.map((c) => COOKIE_CODES[c] + (stored.preferences[c] ? "1" : "0")),
    String(Math.floor(stored.givenAt / 1000))
  ].join(".")

const stripNull = <T extends object>(value: T): Partial<T> => {
  const out: Partial<T> = {}
  for (const key in value) if (value[key] != null) out[key] = value[key]
  return out
}
