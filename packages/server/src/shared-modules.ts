import * as backend from "@svc/backend"
import * as schema from "@svc/schema"
import { sharedModulesKey } from "./config-file.js"

/**
 * Registers the bundle's own `@svc/backend` and `@svc/schema` for config files (a frozen,
 * non-enumerable, non-writable property of `globalThis` under `Symbol.for("svc.configSharedModules")`),
 * so a TypeScript config's `import { defineConfig } from "@svc/backend"` reads the running bundle's
 * values instead of making Node load the packages, and a second Effect, beside it
 * (docs/adr/0094-config-shares-the-running-bundle.md). Only the `svc` command calls it: the
 * library never touches `globalThis`.
 */
export const shareModulesWithConfigs = (): void => {
  if (Object.hasOwn(globalThis, sharedModulesKey)) return
  Object.defineProperty(globalThis, sharedModulesKey, {
    value: Object.freeze({ "@svc/backend": backend, "@svc/schema": schema }),
    enumerable: false,
    writable: false,
    configurable: false
  })
}
