import { statSync } from "node:fs"

/**
 * SQLite has no server to lose: the open file stays readable and writable even after its path is
 * deleted, moved or replaced, so svc would go on recording consent into a file nobody will find
 * again. Readiness therefore also asks whether the configured path still names the file svc
 * opened (same device and inode). Returns `undefined` for `:memory:` or a file it cannot stat now.
 */
export const sqliteFileCheck = (path: string): (() => boolean) | undefined => {
  if (path === ":memory:" || path === "") return undefined
  const identity = (): string | undefined => {
    try {
      const stats = statSync(path)
      return `${stats.dev}:${stats.ino}`
    } catch {
      return undefined
    }
  }
  const opened = identity()
  return opened === undefined ? undefined : () => identity() === opened
}
