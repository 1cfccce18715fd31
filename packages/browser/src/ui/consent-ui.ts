// Puts the banner, the preferences dialog and the settings widget on the page, in a shadow root.
import type { Extension, RuntimeContext } from "../runtime/runtime.js"
import type { Action, Category, Choices, Surface } from "../runtime/types.js"
import { renderBanner } from "./banner.js"
import { h } from "./dom.js"
import { activeElement, focusables, refocus, trapFocus } from "./focus-trap.js"
import { renderDialog, type DialogSection } from "./preferences-dialog.js"
import { translatorFor, type Translate } from "./strings.js"
import { CSS } from "./styles.js"

/** What the IAB bundle adds to the UI. */
export interface UiAddons {
  bannerDescription?(ctx: RuntimeContext, t: Translate): string | undefined
  dialogSections?(ctx: RuntimeContext, t: Translate): ReadonlyArray<DialogSection>
  categoryNote?(ctx: RuntimeContext, t: Translate, category: Category): string | undefined
}

const whenBody = (run: () => void): void => {
  if (document.body) run()
  else document.addEventListener("DOMContentLoaded", run, { once: true })
}

/** Set on the page's root element while the banner shows: how far up from the viewport's bottom it reaches. */
const BANNER_HEIGHT = "--svc-banner-height"

/**
 * Keeps {@link BANNER_HEIGHT} equal to the space the banner covers (its height and its offset from
 * the bottom; `0px` while the dialog hides it), so a page can pad its end by it and keep its own
 * controls reachable. Returns the function that stops and removes it.
 */
const publishBannerHeight = (banner: HTMLElement): () => void => {
  const style = document.documentElement.style
  const measure = () => {
    const top = banner.getBoundingClientRect().top
    style.setProperty(BANNER_HEIGHT, `${banner.hidden ? 0 : Math.max(0, Math.ceil(innerHeight - top))}px`)
  }
  measure()
  const observer = typeof ResizeObserver === "function" ? new ResizeObserver(measure) : undefined
  observer?.observe(banner)
  return () => {
    observer?.disconnect()
    style.removeProperty(BANNER_HEIGHT)
  }
}

export const consentUi = (addons: UiAddons = {}): Extension => {
  let ctx: RuntimeContext
  let root: HTMLElement | undefined
  let banner: HTMLElement | undefined
  let stopBannerHeight: (() => void) | undefined
  let overlay: HTMLElement | undefined
  let widget: HTMLElement | undefined
  let returnFocus: Element | null = null
  let dialogSurface: Surface = "dialog"
  let guard: ((event: FocusEvent) => void) | undefined

  const t = (): Translate => translatorFor(ctx.config, ctx.init())

  const mountRoot = (): HTMLElement => {
    if (root) return root
    const host = h("div", { id: "svc-consent", "data-svc-host": "" })
    const theme = ctx.config.theme ?? {}
    for (const name of Object.keys(theme)) host.style.setProperty(`--svc-${name}`, String(theme[name]))
    const shadow = host.attachShadow({ mode: "open" })
    const style = document.createElement("style")
    style.textContent = CSS
    root = h("div", { class: "root", lang: ctx.init()?.language ?? "en" })
    shadow.append(style, root)
    document.body.append(host)
    return root
  }

  const save = (choices: Choices, action: Action, surface: Surface): void => {
    closeDialog(false)
    hideBanner()
    void ctx.api.save(choices, { action, surface })
  }

  const hideBanner = (): void => {
    stopBannerHeight?.()
    stopBannerHeight = undefined
    banner?.remove()
    banner = undefined
  }

  const showBanner = (): void => {
    whenBody(() => {
      if (banner) return
      const translate = t()
      returnFocus = activeElement()
      banner = renderBanner(
        ctx,
        translate,
        {
          acceptAll: () => save(allOf(true), "accept_all", "banner"),
          rejectAll: () => save(allOf(false), "reject_all", "banner"),
          optOut: () => {
            hideBanner()
            void ctx.api.optOut({ surface: "banner" })
            restoreFocus()
          },
          customize: () => openDialog("dialog"),
          dismiss: () => {
            hideBanner()
            ctx.dismiss()
            restoreFocus()
          }
        },
        addons.bannerDescription?.(ctx, translate)
      )
      mountRoot().append(banner)
      stopBannerHeight = publishBannerHeight(banner)
      ctx.markShown()
      banner.focus({ preventScroll: true })
    })
  }

  const allOf = (value: boolean): Choices => ({
    measurement: value,
    marketing: value,
    functionality: value,
    experience: value
  })

  const restoreFocus = (): void => {
    const target = returnFocus
    returnFocus = null
    refocus(target)
  }

  const openDialog = (surface: Surface): void => {
    whenBody(() => {
      if (overlay) return
      dialogSurface = surface
      const translate = t()
      const opener = activeElement()
      if (!banner) returnFocus = opener
      const dialog = renderDialog(
        ctx,
        translate,
        addons.dialogSections?.(ctx, translate) ?? [],
        {
          submit: (choices, action) => save(choices, action, dialogSurface),
          close: () => closeDialog(true)
        },
        (c) => addons.categoryNote?.(ctx, translate, c)
      )
      trapFocus(dialog, () => closeDialog(true))
      overlay = h("div", { class: "overlay" }, dialog)
      mountRoot().append(overlay)
      ctx.markShown()
      const items = focusables(dialog)
      ;(items.find((el) => el.tagName === "INPUT") ?? items[0])?.focus()
      // Focus that leaves the dialog (a click on the page, a screen reader jump) is brought back.
      guard = (event) => {
        const rootNode = root?.getRootNode()
        const host = rootNode instanceof ShadowRoot ? rootNode.host : null
        if (overlay && event.target !== host) focusables(dialog)[0]?.focus()
      }
      document.addEventListener("focusin", guard)
      bannerOpener = banner ? opener : null
      // The dialog replaces the banner while open; the banner comes back if it closes without a choice.
      if (banner) banner.hidden = true
    })
  }
  let bannerOpener: Element | null = null

  /** Closing without a choice is a dismissal: nothing is saved. */
  const closeDialog = (dismissed: boolean): void => {
    if (!overlay) return
    overlay.remove()
    overlay = undefined
    if (guard) document.removeEventListener("focusin", guard)
    guard = undefined
    if (!dismissed) return
    if (banner) {
      banner.hidden = false
      refocus(bannerOpener)
    } else {
      if (ctx.state().status === "pending") ctx.dismiss()
      restoreFocus()
    }
  }

  const showWidget = (): void => {
    if (!ctx.config.widget || widget) return
    whenBody(() => {
      widget = h(
        "button",
        { type: "button", class: "widget alt", onclick: () => openDialog("widget") },
        t()("widget.label")
      )
      mountRoot().append(widget)
    })
  }

  return {
    setup(context) {
      ctx = context
      ctx.api.showPreferences = () => openDialog("widget")
      ctx.api.showBanner = () => showBanner()
      ctx.api.closeUi = () => {
        closeDialog(false)
        hideBanner()
      }
      ctx.api.subscribe((state, event) => {
        if (event === "save") {
          hideBanner()
          closeDialog(false)
          restoreFocus()
          showWidget()
        } else if (event === "reset" && ctx.config.ui !== false && ctx.shouldPrompt()) prompt()
        else if (event === "hydrate" && state.status === "given") showWidget()
      })
    },
    ready(context) {
      ctx = context
      if (ctx.config.ui === false) return
      if (ctx.shouldPrompt()) prompt()
      else if (ctx.state().status === "given") showWidget()
    }
  }

  function prompt(): void {
    if (ctx.init()?.policy?.prompt === "dialog") openDialog("dialog")
    else showBanner()
  }
}
