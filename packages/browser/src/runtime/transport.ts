// HTTP calls to the backend, classified the way the replay queue needs them.
import { propertyOf } from "./guards.js"

export type Fetch = (input: string, init?: RequestInit) => Promise<Response>

export type Delivery =
  | { kind: "stored"; status: number; body: unknown }
  /** Network failure, 408, 429 or 5xx: worth trying again later. */
  | { kind: "retry"; status: number }
  /** Any other answer: the backend refused the request and a retry would be refused too. */
  | { kind: "refused"; status: number; code?: string; body: unknown }

export const isRetryable = (status: number): boolean =>
  status === 0 || status === 408 || status === 429 || status >= 500

const readBody = async (response: Response): Promise<unknown> => {
  try {
    return await response.json()
  } catch {
    return undefined
  }
}

export const sendJson = async (fetchFn: Fetch, method: string, url: string, body: unknown): Promise<Delivery> => {
  let response: Response
  try {
    response = await fetchFn(url, {
      method,
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
      credentials: "omit",
      keepalive: true
    })
  } catch {
    return { kind: "retry", status: 0 }
  }
  const parsed = await readBody(response)
  if (response.ok) return { kind: "stored", status: response.status, body: parsed }
  if (isRetryable(response.status)) return { kind: "retry", status: response.status }
  const code = propertyOf(propertyOf(parsed, "cause"), "code")
  return typeof code === "string"
    ? { kind: "refused", status: response.status, code, body: parsed }
    : { kind: "refused", status: response.status, body: parsed }
}
