// `window.__gpp`: the IAB GPP CMP API v1.1 (ping, addEventListener, removeEventListener, hasSection,
// getSection, getField) with the US National section for opt-out rules in the United States.
import type { Extension, RuntimeContext } from "../runtime/runtime.js"
import { isMatched } from "../runtime/policy.js"
import { encodeUsnat, usnatFields, USNAT_ID, type UsnatFields } from "./usnat.js"
import { addLocatorFrame } from "./locator-frame.js"
import { type Callback, frameCall, isCallback } from "./frame-calls.js"
import { isList, propertyOf } from "../runtime/guards.js"

/** A GPP string that lists no section. */
const EMPTY_GPP = "DBAA"

/** The usnat section when the matched rule is opt-out and the visitor is in the US, else undefined. */
export const usnatOf = (ctx: RuntimeContext): UsnatFields | undefined => {
  const init = ctx.init()
  if (!isMatched(init) || init.policy.model !== "opt-out" || init.location?.country !== "US") return undefined
  const state = ctx.state()
  return usnatFields(state.preferences.marketing, state.gpc, ctx.config.iab?.mspaCovered === true)
}

export const gppApi = (): Extension => {
  let ctx: RuntimeContext
  let loaded = false
  let uiShown = false
  let nextListenerId = 1
  const listeners = new Map<number, Callback>()

  const pingData = () => {
    const usnat = loaded ? usnatOf(ctx) : undefined
    return {
      gppVersion: "1.1",
      cmpStatus: loaded ? "loaded" : "loading",
      cmpDisplayStatus: uiShown && ctx.state().status === "pending" ? "visible" : "hidden",
      signalStatus: loaded ? "ready" : "not ready",
      supportedAPIs: [`${USNAT_ID}:usnat`],
      cmpId: ctx.init()?.iab?.cmpId ?? 0,
      sectionList: usnat ? [USNAT_ID] : [],
      applicableSections: usnat ? [USNAT_ID] : [-1],
      gppString: usnat ? encodeUsnat(usnat) : EMPTY_GPP,
      parsedSections: usnat ? { usnat } : {}
    }
  }

  const event = (eventName: string, listenerId: number, data: unknown) => ({
    eventName,
    listenerId,
    data,
    pingData: pingData()
  })
  const section = (name: unknown) => (name === "usnat" && loaded ? usnatOf(ctx) : undefined)

  const handle = (command: unknown, callback: unknown, parameter?: unknown): unknown => {
    if (!isCallback(callback)) return undefined
    const cb = callback
    switch (command) {
      case "ping":
        return cb(pingData(), true)
      case "addEventListener": {
        const id = nextListenerId++
        listeners.set(id, cb)
        return cb(event("listenerRegistered", id, true), true)
      }
      case "removeEventListener": {
        const id = Number(parameter)
        const removed = listeners.delete(id)
        return cb(event("listenerRemoved", id, removed), true)
      }
      case "hasSection":
        return cb(section(String(parameter).split(".")[0]) !== undefined, true)
      case "getSection":
        return cb(section(parameter) ?? null, true)
      case "getField": {
        const [name, field] = String(parameter).split(".")
        const value = field === undefined ? undefined : propertyOf(section(name), field)
        return cb(value === undefined ? null : value, true)
      }
      default:
        return cb(null, false)
    }
  }

  const notify = (eventName: string, data: unknown): void => {
    for (const [id, cb] of listeners) cb(event(eventName, id, data), true)
  }

  const install = (): void => {
    const w = window
    // The IAB stub answers `__gpp()` with its queued calls; listeners it registered are in `__gpp('events')`.
    let queued: unknown
    let events: unknown
    try {
      queued = w.__gpp?.()
      events = w.__gpp?.("events")
    } catch {
      // not the IAB stub: nothing queued
    }
    w.__gpp = handle
    for (const e of isList(events) ? events : []) {
      const [id, callback] = [propertyOf(e, "id"), propertyOf(e, "callback")]
      if (typeof id !== "number" || !isCallback(callback)) continue
      listeners.set(id, callback)
      nextListenerId = Math.max(nextListenerId, id + 1)
    }
    for (const args of isList(queued) ? queued : []) if (isList(args)) handle(args[0], args[1], args[2])
    // Frames call through postMessage; the locator frame tells them a CMP is here.
    window.addEventListener("message", (message) => {
      const frame = frameCall(message, "__gppCall")
      if (frame === undefined) return
      const { call, reply } = frame
      handle(
        call.command,
        (returnValue: unknown, success: boolean) =>
          reply({ __gppReturn: { returnValue, success, callId: call.callId } }),
        call.parameter
      )
    })
    addLocatorFrame("__gppLocator")
  }

  return {
    setup(context) {
      ctx = context
      install()
      ctx.api.subscribe((_state, change) => {
        if (!loaded) return
        if (change === "save") uiShown = false
        if (change === "save" || change === "reset") notify("sectionChange", "usnat")
      })
    },
    beforeStore(stored, context) {
      const usnat = usnatOf(context)
      if (usnat === undefined) return
      // The string of the choice being stored (the state still holds the one before it).
      stored.gppString = encodeUsnat(
        usnatFields(stored.preferences.marketing, usnat.Gpc, usnat.MspaCoveredTransaction === 1)
      )
    },
    ready(context) {
      ctx = context
      uiShown = ctx.config.ui !== false && ctx.shouldPrompt()
      loaded = true
      notify("cmpStatus", "loaded")
      notify("signalStatus", "ready")
    }
  }
}
