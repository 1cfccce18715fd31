// Server-side entry: where the built browser bundles live, for the backend's script routes.
import { fileURLToPath } from "node:url"

export interface BundleFiles {
  readonly full: string
  readonly headless: string
  readonly iab: string
}

/** Absolute paths of the files `npm run build -w @svc/browser` writes. */
export const bundleFiles: BundleFiles = {
  full: fileURLToPath(new URL("../dist/svc.js", import.meta.url)),
  headless: fileURLToPath(new URL("../dist/svc.headless.js", import.meta.url)),
  iab: fileURLToPath(new URL("../dist/svc.iab.js", import.meta.url))
}

/**
 * The one line the script routes put before a bundle: the backend URL and the browser defaults.
 * `</` is escaped so the JSON cannot close an inline `<script>` element.
 */
export const embeddedPrelude = (embedded: { backendURL: string; config: Record<string, unknown> }): string =>
  `;window.__SVC_EMBEDDED__=${JSON.stringify(embedded).replace(/</g, "\\u003c").replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029")};\n`
