// Server-side entry: where the built browser bundles live, for the backend's script routes.
import { fileURLToPath } from "node:url"

/**
 * Where the three browser bundles are: `full` (`svc.js`, banner and preferences dialog), `headless`
 * (`svc.headless.js`, the runtime without UI) and `iab` (`svc.iab.js`, with the IAB TCF and GPP APIs).
 *
 * @example
 * ```ts
 * import { type BundleFiles, bundleFiles } from "@svc/browser"
 * import { readFileSync } from "node:fs"
 *
 * // A host serving the scripts itself picks the bundle per page and sends it with a long cache life.
 * const scriptFor = (files: BundleFiles, page: { iab: boolean; customUi: boolean }) =>
 *   page.iab ? files.iab : page.customUi ? files.headless : files.full
 * const script = readFileSync(scriptFor(bundleFiles, { iab: false, customUi: true }))
 * ```
 */
export interface BundleFiles {
  readonly full: string
  readonly headless: string
  readonly iab: string
}

/**
 * Absolute paths of the files `npm run build -w @svc/browser` writes.
 *
 * @example
 * ```ts
 * import { bundleFiles } from "@svc/browser"
 * import { createReadStream } from "node:fs"
 * import { createServer } from "node:http"
 *
 * // The banner script served by the app's own server, on its own origin.
 * createServer((request, response) => {
 *   if (request.url !== "/assets/svc.js") return response.writeHead(404).end()
 *   response.writeHead(200, {
 *     "content-type": "text/javascript; charset=utf-8",
 *     "cache-control": "public, max-age=3600"
 *   })
 *   createReadStream(bundleFiles.full).pipe(response)
 * }).listen(8080)
 * ```
 */
export const bundleFiles: BundleFiles = {
  full: fileURLToPath(new URL("../dist/svc.js", import.meta.url)),
  headless: fileURLToPath(new URL("../dist/svc.headless.js", import.meta.url)),
  iab: fileURLToPath(new URL("../dist/svc.iab.js", import.meta.url))
}
