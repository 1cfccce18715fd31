/** The key of an `Authorization: Bearer <key>` header value, or `undefined` (absent or another scheme). */
export const bearerToken = (authorization: string | undefined): string | undefined => {
  if (authorization === undefined) return undefined
  return /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1]
}
