import { randomBytes } from "node:crypto"
import type { TestServer } from "./server.js"

/** A fresh, valid subject id. */
export const newSubjectId = () => `sub_${randomBytes(12).toString("base64url")}`

export const allPreferences = (granted: boolean) => ({
  necessary: true,
  measurement: granted,
  marketing: granted,
  functionality: granted,
  experience: granted
})

/** A valid cookie-banner save for a new subject, with overrides. */
export const cookieSave = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  type: "cookie_banner",
  domain: "example.com",
  subjectId: newSubjectId(),
  givenAt: Date.now(),
  preferences: allPreferences(true),
  ...overrides
})

/**
 * POSTs `cookieSave(overrides)` to the svc at `base` (a URL: a spawned `svc serve`, an example app,
 * a `startServer`), and reads the JSON answer.
 */
export const postCookieSave = async (
  base: string,
  overrides: Record<string, unknown> = {},
  headers: Record<string, string> = {}
): Promise<{ readonly status: number; readonly body: Record<string, unknown> }> => {
  const response = await fetch(`${base}/subjects`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(cookieSave(overrides))
  })
  return { status: response.status, body: await response.json() as Record<string, unknown> }
}

export interface JsonResponse {
  readonly status: number
  readonly body: any
  readonly headers: Headers
}

/** Sends JSON (or nothing) and reads the JSON answer. */
export const call = async (
  server: TestServer,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {}
): Promise<JsonResponse> => {
  const response = await server.fetch(path, {
    method,
    headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const text = await response.text()
  return { status: response.status, body: text === "" ? undefined : JSON.parse(text), headers: response.headers }
}

export const save = (server: TestServer, body: unknown, headers: Record<string, string> = {}) =>
  call(server, "POST", "/subjects", body, headers)

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` })

/** Publishes a legal document release, `PUT /legal-documents/:type/current` with an API key. */
export const publishRelease = (
  server: TestServer,
  apiKey: string,
  { effectiveDate = "2026-01-01", hash, type, version }: {
    readonly type: string
    readonly version: string
    readonly hash: string
    readonly effectiveDate?: string
  }
) => call(server, "PUT", `/legal-documents/${type}/current`, { version, hash, effectiveDate }, bearer(apiKey))

/** Rows of `svc_consents` for a subject, straight from the database. */
export const consentRows = (server: TestServer, subjectId: string) =>
  server.db().query("SELECT * FROM svc_consents WHERE subject_id = ? ORDER BY given_at", [subjectId])

export const subjectRow = async (server: TestServer, subjectId: string) =>
  (await server.db().query("SELECT * FROM svc_subjects WHERE id = ?", [subjectId]))[0]
