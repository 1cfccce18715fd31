// The second layer: a modal dialog with one switch per category the policy offers.
import type { RuntimeContext } from "../runtime/runtime.js"
import type { Action, Category, Choices } from "../runtime/types.js"
import { button, h } from "./dom.js"
import type { Translate } from "./strings.js"

/** Extra content a bundle adds to the dialog (the IAB vendor list); it adds to the choices on save. */
export interface DialogSection {
  el: HTMLElement
  collect(choices: Choices, action: Action): void
}

export interface DialogActions {
  submit(choices: Choices, action: Action): void
  close(): void
}

export const renderDialog = (
  ctx: RuntimeContext,
  t: Translate,
  sections: ReadonlyArray<DialogSection>,
  actions: DialogActions,
  categoryNote: (category: Category) => string | undefined
): HTMLElement => {
  const state = ctx.state()
  const policy = ctx.init()?.policy ?? null
  const categories = policy?.categories ?? []
  const denied = ctx.gpcDenied()
  // Before a first choice, opt-in starts from the rule's preselection; afterwards from the current state.
  const checkedAtStart = (c: Category): boolean =>
    state.status === "pending" && state.model !== "opt-out"
      ? (policy?.preselected ?? []).includes(c)
      : state.preferences[c]
  const vendorsOf = (c: Category): string =>
    ctx
      .knownVendors()
      .filter((v) => v.category === c)
      .map((v) => v.name)
      .join(", ")

  const boxes = new Map<Category, HTMLInputElement>()
  const rows = categories.map((c) => {
    const locked = denied.includes(c)
    const input = h("input", {
      type: "checkbox",
      role: "switch",
      id: `svc-cat-${c}`,
      name: c,
      checked: !locked && checkedAtStart(c),
      disabled: locked,
      "aria-describedby": `svc-cat-${c}-desc`
    })
    boxes.set(c, input)
    const vendors = vendorsOf(c)
    const note = categoryNote(c)
    return h(
      "li",
      {},
      h("label", { for: `svc-cat-${c}` }, input, t(`categories.${c}.title`)),
      h(
        "p",
        { id: `svc-cat-${c}-desc` },
        t(`categories.${c}.description`),
        locked ? " " + t("dialog.gpc") : "",
        vendors ? " " + t("dialog.vendors", { vendors }) : ""
      ),
      note ? h("p", { class: "note" }, note) : null
    )
  })

  const collect = (action: Action): Choices => {
    const choices: Choices = {}
    for (const [c, input] of boxes)
      choices[c] = action === "accept_all"
        ? !input.disabled
        : action === "reject_all"
        ? false
        : input.checked
    for (const section of sections) section.collect(choices, action)
    return choices
  }

  const dialog = h(
    "div",
    {
      class: "dialog",
      role: "dialog",
      "aria-modal": "true",
      "aria-labelledby": "svc-dialog-title",
      "aria-describedby": "svc-dialog-desc",
      "data-svc": "dialog"
    },
    h(
      "div",
      { class: "head" },
      h("h2", { id: "svc-dialog-title" }, t("dialog.title")),
      h("button", { type: "button", class: "close", "aria-label": t("dialog.close"), onclick: actions.close }, "×")
    ),
    h("p", { id: "svc-dialog-desc" }, t("dialog.description")),
    h(
      "ul",
      {},
      h(
        "li",
        {},
        h(
          "label",
          { for: "svc-cat-necessary" },
          h("input", { type: "checkbox", role: "switch", id: "svc-cat-necessary", checked: true, disabled: true }),
          t("categories.necessary.title"),
          h("span", { class: "on" }, t("dialog.alwaysOn"))
        ),
        h("p", {}, t("categories.necessary.description"))
      ),
      rows
    ),
    sections.map((s) => s.el),
    h(
      "div",
      { class: "actions" },
      button(t("dialog.rejectAll"), () => actions.submit(collect("reject_all"), "reject_all")),
      button(t("dialog.save"), () => actions.submit(collect("custom"), "custom"), "alt"),
      button(t("dialog.acceptAll"), () => actions.submit(collect("accept_all"), "accept_all"))
    )
  )
  return dialog
}
