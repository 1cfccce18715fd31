// Keeps Tab and Shift+Tab inside an open modal dialog.

const FOCUSABLE =
  'button:not([disabled]),input:not([disabled]),select:not([disabled]),a[href],summary,[tabindex]:not([tabindex="-1"])'

export const focusables = (root: HTMLElement): Array<HTMLElement> =>
  Array.from(root.querySelectorAll<HTMLElement>(FOCUSABLE)).filter(
    (el) => el.getClientRects().length > 0 && !el.closest("details:not([open]) > :not(summary)")
  )

/** The element that has focus, looking inside shadow roots. */
export const activeElement = (): Element | null => {
  let el = document.activeElement
  while (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement
  return el
}

/** Gives focus back to an element that had it (an HTML or SVG element still in the page). */
export const refocus = (el: Element | null): void => {
  if ((el instanceof HTMLElement || el instanceof SVGElement) && el.isConnected) el.focus()
}

export const trapFocus = (dialog: HTMLElement, onEscape: () => void): void => {
  dialog.addEventListener("keydown", (event) => {
    if (event.key === "Escape") {
      event.preventDefault()
      event.stopPropagation()
      onEscape()
      return
    }
    if (event.key !== "Tab") return
    const items = focusables(dialog)
    if (items.length === 0) {
      event.preventDefault()
      return
    }
    const first = items[0]!
    const last = items[items.length - 1]!
    const current = activeElement()
    const inside = current instanceof HTMLElement && dialog.contains(current)
    if (event.shiftKey && (current === first || !inside)) {
      event.preventDefault()
      last.focus()
    } else if (!event.shiftKey && (current === last || !inside)) {
      event.preventDefault()
      first.focus()
    }
  })
}
