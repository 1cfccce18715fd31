// The IAB additions to the UI: banner text naming the partner count, purposes per category,
// and a vendor list with one consent switch per vendor.
import { propertyOf } from "../runtime/guards.js"
import type { RuntimeContext } from "../runtime/runtime.js"
import type { Category, Gvl, GvlVendor } from "../runtime/types.js"
import { h } from "../ui/dom.js"
import type { UiAddons } from "../ui/consent-ui.js"
import type { DialogSection } from "../ui/preferences-dialog.js"
import type { Translate } from "../ui/strings.js"
import { purposesOf } from "./purposes.js"

const gvlOf = (ctx: RuntimeContext): Gvl | undefined =>
  ctx.init()?.policy?.model === "iab" ? ctx.init()?.gvl : undefined

const activeVendors = (gvl: Gvl): Array<GvlVendor> =>
  Object.keys(gvl.vendors)
    .map((k) => gvl.vendors[k]!)
    .filter((v) => !v.deletedDate)
    .sort((a, b) => a.name.localeCompare(b.name))

const purposeName = (gvl: Gvl, id: number): string => {
  const name = propertyOf(gvl.purposes[String(id)], "name")
  return typeof name === "string" ? name : `Purpose ${id}`
}

const policyUrl = (v: GvlVendor): string | undefined => {
  const url = v.urls?.[0]?.privacy ?? v.policyUrl
  return url && /^https?:\/\//.test(url) ? url : undefined
}

const vendorSection = (ctx: RuntimeContext, t: Translate, gvl: Gvl): DialogSection => {
  const state = ctx.state()
  const boxes: Array<[string, HTMLInputElement]> = []
  const items = activeVendors(gvl).map((v) => {
    const id = String(v.id)
    const input = h("input", {
      type: "checkbox",
      id: `svc-vendor-${id}`,
      "data-vendor": id,
      checked: state.status === "given" && state.vendors[id] === true
    })
    boxes.push([id, input])
    const url = policyUrl(v)
    const purposes = (v.purposes ?? []).map((p) => purposeName(gvl, p)).join(", ")
    return h(
      "li",
      {},
      h("label", { for: `svc-vendor-${id}` }, input, v.name),
      purposes ? h("p", {}, t("iab.purposes", { purposes })) : null,
      (v.legIntPurposes ?? []).length > 0 ? h("p", {}, t("iab.legitimateInterest")) : null,
      url ? h("a", { href: url, target: "_blank", rel: "noopener noreferrer" }, t("iab.vendorPolicy")) : null
    )
  })
  const el = h(
    "details",
    { "data-svc": "vendors" },
    h("summary", {}, t("iab.vendors", { count: items.length })),
    h("ul", { class: "vendors" }, items)
  )
  return {
    el,
    collect(choices, action) {
      const vendors: Record<string, boolean> = {}
      for (const [id, input] of boxes)
        vendors[id] = action === "accept_all"
          ? true
          : action === "reject_all"
          ? false
          : input.checked
      choices.vendors = { ...choices.vendors, ...vendors }
    }
  }
}

export const iabUi: UiAddons = {
  bannerDescription(ctx, t) {
    const gvl = gvlOf(ctx)
    return gvl ? t("iab.description", { count: activeVendors(gvl).length }) : undefined
  },
  dialogSections(ctx, t) {
    const gvl = gvlOf(ctx)
    return gvl ? [vendorSection(ctx, t, gvl)] : []
  },
  categoryNote(ctx, t, category: Category) {
    const gvl = gvlOf(ctx)
    if (!gvl) return undefined
    const ids = category === "functionality" ? [] : purposesOf(category)
    return ids.length > 0 ? t("iab.purposes", { purposes: ids.map((p) => purposeName(gvl, p)).join(", ") }) : undefined
  }
}
