import { defaultServerConditions } from "vite"

/**
 * Workspace packages export `dist/` JavaScript by default and their TypeScript source under the
 * `@svc/source` condition; the tests always run the source.
 */
export const sourceResolution = {
  resolve: { conditions: ["@svc/source", ...defaultServerConditions] },
  ssr: { resolve: { conditions: ["@svc/source", ...defaultServerConditions] } }
}
