import { hash } from "node:crypto"

/**
 * JSON with object keys sorted at every level (by UTF-16 code units, as `Array.prototype.sort`
 * compares strings), so equal values always hash the same. Built in one pass, without the
 * intermediate arrays: every save digests its act with it.
 */
export const canonicalJson = (value: unknown): string => {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null"
  if (Array.isArray(value)) {
    let out = "["
    for (let i = 0; i < value.length; i++) out += (i === 0 ? "" : ",") + canonicalJson(value[i])
    return `${out}]`
  }
  let out = "{"
  let first = true
  for (const key of Object.keys(value).sort()) {
    const v: unknown = Reflect.get(value, key)
    if (v === undefined) continue
    out += `${first ? "" : ","}${JSON.stringify(key)}:${canonicalJson(v)}`
    first = false
  }
  return `${out}}`
}

/** SHA-256 of the canonical JSON, base64url, cut to 128 bits (22 characters). */
export const digest = (value: unknown): string => hash("sha256", canonicalJson(value), "base64url").slice(0, 22)
