// `window.__tcfapi`: the TCF v2.2 CMP API (ping, getTCData, addEventListener, removeEventListener).
import type { Extension, RuntimeContext } from "../runtime/runtime.js"
import { isMatched } from "../runtime/policy.js"
import type { ConsentState, Gvl, InitResponse } from "../runtime/types.js"
import { encodeTcString } from "./tc-string.js"
import { tcModel } from "./purposes.js"
import { addLocatorFrame } from "./locator-frame.js"
import { type Callback, frameCall, isCallback } from "./frame-calls.js"

type EventStatus = "tcloaded" | "cmpuishown" | "useractioncomplete"

export const CMP_API_VERSION = "2.2"

const hasGvl = (init: InitResponse): init is InitResponse & { gvl: Gvl } => init.gvl !== undefined

const iabInit = (init: InitResponse | null): (InitResponse & { gvl: Gvl }) | undefined =>
  isMatched(init) && init.policy.model === "iab" && hasGvl(init) ? init : undefined

const idMap = (ids: ReadonlyArray<number>, all: ReadonlyArray<number>): Record<string, boolean> => {
  const out: Record<string, boolean> = {}
  for (const id of all) out[id] = ids.includes(id)
  return out
}
const range = (n: number): Array<number> => Array.from({ length: n }, (_, i) => i + 1)

/** Builds the TC data object a CMP API call answers with. */
export const tcData = (
  ctx: RuntimeContext,
  state: ConsentState,
  eventStatus: EventStatus,
  listenerId: number | undefined,
  vendorIds?: ReadonlyArray<number>
): Record<string, unknown> => {
  const init = iabInit(ctx.init())
  const base = {
    cmpId: ctx.init()?.iab?.cmpId ?? 0,
    cmpVersion: ctx.config.iab?.cmpVersion ?? 1,
    cmpStatus: "loaded",
    eventStatus,
    listenerId,
    isServiceSpecific: true,
    useNonStandardTexts: false,
    purposeOneTreatment: false,
    publisherCC: ctx.config.iab?.publisherCC ?? "AA"
  }
  if (init === undefined) return { ...base, gdprApplies: false, tcString: "", tcfPolicyVersion: 4 }
  const given = state.status === "given"
  const model = tcModel(init, given ? state : { ...state, vendors: {} }, ctx.config, state.givenAt ?? Date.now())
  const purposeConsents = given ? model.purposesConsent : []
  const vendors = Object.keys(init.gvl.vendors).map(Number)
  const asked = vendorIds ?? vendors
  return {
    ...base,
    gdprApplies: true,
    tcString: given ? state.tcString ?? encodeTcString(model) : "",
    tcfPolicyVersion: model.tcfPolicyVersion,
    purpose: {
      consents: idMap(purposeConsents, range(11)),
      legitimateInterests: idMap(given ? model.purposesLITransparency : [], range(11))
    },
    vendor: {
      consents: idMap(given ? model.vendorConsents : [], asked),
      legitimateInterests: idMap(given ? model.vendorLegitimateInterests : [], asked)
    },
    specialFeatureOptins: idMap([], range(2)),
    publisher: {
      consents: {},
      legitimateInterests: {},
      customPurpose: { consents: {}, legitimateInterests: {} },
      restrictions: {}
    }
  }
}

export const cmpApi = (): Extension => {
  let ctx: RuntimeContext
  let loaded = false
  let uiShown = false
  let nextListenerId = 1
  const listeners = new Map<number, Callback>()
  const waiting: Array<() => void> = []

  const currentStatus = (): EventStatus => (uiShown && ctx.state().status === "pending" ? "cmpuishown" : "tcloaded")

  const whenLoaded = (run: () => void): void => {
    if (loaded) run()
    else waiting.push(run)
  }

  const handle = (command: unknown, version: unknown, callback: unknown, parameter?: unknown): void => {
    if (!isCallback(callback)) return
    const cb = callback
    if (version !== undefined && version !== null && Number(version) < 2) return cb(false, false)
    switch (command) {
      case "ping": {
        const init = ctx.init()
        return cb(
          {
            gdprApplies: loaded ? iabInit(init) !== undefined : undefined,
            cmpLoaded: true,
            cmpStatus: loaded ? "loaded" : "loading",
            displayStatus: !loaded
              ? "hidden"
              : iabInit(init) === undefined
              ? "disabled"
              : uiShown
              ? "visible"
              : "hidden",
            apiVersion: CMP_API_VERSION,
            cmpVersion: ctx.config.iab?.cmpVersion ?? 1,
            cmpId: init?.iab?.cmpId ?? 0,
            gvlVersion: init?.gvl?.vendorListVersion,
            tcfPolicyVersion: init?.gvl?.tcfPolicyVersion ?? 4
          },
          true
        )
      }
      case "getTCData":
        return whenLoaded(() =>
          cb(
            tcData(
              ctx,
              ctx.state(),
              currentStatus(),
              undefined,
              Array.isArray(parameter) ? parameter.map(Number) : undefined
            ),
            true
          )
        )
      case "addEventListener": {
        const id = nextListenerId++
        listeners.set(id, cb)
        return whenLoaded(() => {
          if (listeners.has(id)) cb(tcData(ctx, ctx.state(), currentStatus(), id), true)
        })
      }
      case "removeEventListener": {
        const id = Number(parameter)
        return cb(listeners.delete(id), true)
      }
      default:
        return cb(false, false)
    }
  }

  const notify = (status: EventStatus): void => {
    for (const [id, cb] of listeners) cb(tcData(ctx, ctx.state(), status, id), true)
  }

  const install = (): void => {
    const queued = window.__tcfapi?.a ?? []
    window.__tcfapi = handle
    for (const args of queued) handle(args[0], args[1], args[2], args[3])
    // Frames call through postMessage; the locator frame tells them a CMP is here.
    window.addEventListener("message", (event) => {
      const frame = frameCall(event, "__tcfapiCall")
      if (frame === undefined) return
      const { call, reply } = frame
      handle(
        call.command,
        call.version,
        (returnValue: unknown, success: boolean) =>
          reply({ __tcfapiReturn: { returnValue, success, callId: call.callId } }),
        call.parameter
      )
    })
    addLocatorFrame("__tcfapiLocator")
  }

  return {
    setup(context) {
      ctx = context
      install()
      ctx.api.subscribe((_state, event) => {
        if (event === "save") {
          uiShown = false
          if (loaded) notify("useractioncomplete")
        }
      })
    },
    beforeStore(stored, context) {
      const init = iabInit(context.init())
      if (init === undefined) return
      const state: ConsentState = {
        ...context.state(),
        status: "given",
        preferences: stored.preferences,
        vendors: stored.vendors ?? {}
      }
      stored.tcString = encodeTcString(tcModel(init, state, context.config, stored.givenAt))
    },
    ready(context) {
      ctx = context
      uiShown = ctx.config.ui !== false && ctx.shouldPrompt()
      loaded = true
      for (const run of waiting.splice(0)) run()
      // Listeners added before load got their first answer above; later changes arrive through notify().
    }
  }
}
