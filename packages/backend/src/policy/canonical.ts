import { createHash } from "node:crypto"

/** JSON with object keys sorted at every level, so equal values always hash the same. */
export const canonicalJson = (value: unknown): string => {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null"
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`
  const entries = Object.entries(value)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`
}

/** SHA-256 of the canonical JSON, base64url, cut to 128 bits (22 characters). */
export const digest = (value: unknown): string =>
  createHash("sha256").update(canonicalJson(value)).digest("base64url").slice(0, 22)
