// The first layer: a banner (opt-in, iab) or a "Do not sell or share" notice (opt-out).
import type { RuntimeContext } from "../runtime/runtime.js"
import { button, h } from "./dom.js"
import type { Translate } from "./strings.js"

export interface BannerActions {
  acceptAll(): void
  rejectAll(): void
  customize(): void
  optOut(): void
  dismiss(): void
}

export const renderBanner = (
  ctx: RuntimeContext,
  t: Translate,
  actions: BannerActions,
  description: string | undefined
): HTMLElement => {
  const optOutModel = ctx.state().model === "opt-out"
  const prefix = optOutModel ? "optOut" : "banner"
  const buttons = optOutModel
    ? [
      button(t("optOut.dismiss"), actions.dismiss, "alt"),
      button(t("optOut.preferences"), actions.customize, "alt"),
      button(t("optOut.doNotSell"), actions.optOut)
    ]
    : [
      button(t("banner.customize"), actions.customize, "alt"),
      button(t("banner.rejectAll"), actions.rejectAll),
      button(t("banner.acceptAll"), actions.acceptAll)
    ]
  const section = h(
    "section",
    {
      class: "banner",
      role: "region",
      "aria-labelledby": "svc-banner-title",
      "aria-describedby": "svc-banner-desc",
      tabindex: -1,
      "data-svc": optOutModel ? "notice" : "banner"
    },
    h("h2", { id: "svc-banner-title" }, t(`${prefix}.title`)),
    h("p", { id: "svc-banner-desc" }, description ?? t(`${prefix}.description`)),
    h("div", { class: "actions" }, buttons)
  )
  if (optOutModel) {
    section.addEventListener("keydown", (event) => {
      if (event.key === "Escape") actions.dismiss()
    })
  }
  return section
}
