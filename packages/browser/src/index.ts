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
