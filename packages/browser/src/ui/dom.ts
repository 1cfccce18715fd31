// A tiny element builder: no framework, no innerHTML with data.

type Attr = string | number | boolean | undefined | null | ((event: Event) => void)
type Child = Node | string | null | undefined | false

export const h = <K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, Attr> = {},
  ...children: ReadonlyArray<Child | ReadonlyArray<Child>>
): HTMLElementTagNameMap[K] => {
  const el = document.createElement(tag)
  for (const name of Object.keys(attrs)) {
    const value = attrs[name]
    if (typeof value === "function") el.addEventListener(name.slice(2), value)
    else if (value === true) el.setAttribute(name, "")
    else if (value !== false && value !== undefined && value !== null) el.setAttribute(name, String(value))
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue
    el.append(child)
  }
  return el
}

export const button = (label: string, onClick: () => void, cls = ""): HTMLElement =>
  h("button", { type: "button", class: cls || undefined, onclick: onClick }, label)
