/**
 * Adds the hidden, named iframe by which scripts in other frames find a CMP API (`__tcfapiLocator`,
 * `__gppLocator`): once, as soon as the document has a body.
 */
export const addLocatorFrame = (name: string): void => {
  const add = () => {
    // The DOM's named access: a child frame of that name (the IAB stub may have added it) is there.
    if (name in window.frames) return
    const frame = document.createElement("iframe")
    frame.name = name
    frame.style.display = "none"
    frame.setAttribute("aria-hidden", "true")
    frame.tabIndex = -1
    document.body.append(frame)
  }
  if (document.body) add()
  else document.addEventListener("DOMContentLoaded", add, { once: true })
}
