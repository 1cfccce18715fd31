/**
 * The key of an `Authorization: Bearer <key>` header value, or `undefined` (absent, blank or another
 * scheme). The one reading of the header: the API key security, the request context, `/metrics` and
 * `/insight` all use it. The scheme is case-insensitive (RFC 9110 §11.1).
 */
export const bearerToken = (authorization: string | undefined): string | undefined => {
  if (authorization === undefined) return undefined
  return /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1]
}
