// A site on its own origin that embeds the bundle with one script tag, as a site owner would.
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"

export interface PageOptions {
  bundle?: "svc.js" | "svc.headless.js" | "svc.iab.js"
  config?: Record<string, unknown>
  /** Inline script run before the bundle loads (queued commands, a __tcfapi stub). */
  before?: string
}

const html = (backendURL: string, o: PageOptions): string =>
  `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>svc test site</title>
<script>
window.svcConfig = ${JSON.stringify(o.config ?? {})};
window.svc = window.svc || [];
${o.before ?? ""}
</script>
<script src="${backendURL}/${o.bundle ?? "svc.js"}"></script>
</head><body>
<a href="#main" id="skip">Skip to content</a>
<main id="main"><h1>Test site</h1><button type="button" id="page-button">A page button</button></main>
</body></html>`

export const startSite = async (backendURL: string) => {
  const pages = new Map<string, PageOptions>()
  let next = 0
  const server = createServer((req, res) => {
    const key = new URL(req.url ?? "/", "http://x").pathname.slice(1)
    const page = pages.get(key)
    if (!page) {
      res.writeHead(404).end()
      return
    }
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(html(backendURL, page))
  })
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    page(options: PageOptions): string {
      const key = `p${++next}`
      pages.set(key, options)
      return `${base}/${key}`
    },
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections()
        server.close(() => done())
      })
  }
}
