import { describe, expect, it } from "vitest"
import { dialects } from "./support/dialects.js"
import { type TestServer, useServer } from "./support/server.js"

const API_KEY = "admin-key-9c4e1f7a2b6d8035e1-0123456"
const OTHER_KEY = "admin-key-second-77aa11bb22cc-012345"

interface KeyOnlyEndpoint {
  readonly name: string
  readonly method: string
  readonly path: string
  readonly body?: unknown
}

/** Every endpoint the spec marks "API key: Required", each with a request that is otherwise valid. */
const keyOnly: ReadonlyArray<KeyOnlyEndpoint> = [
  { name: "GET /subjects?externalId=", method: "GET", path: "/subjects?externalId=user-1" },
  { name: "GET /consents/check", method: "GET", path: "/consents/check?externalId=user-1&type=privacy_policy" },
  { name: "GET /experiments/:id/summary", method: "GET", path: "/experiments/exp-1/summary?from=2026-01-01" },
  {
    name: "PUT /legal-documents/:type/current",
    method: "PUT",
    path: "/legal-documents/privacy_policy/current",
    body: { version: "1", hash: "sha256-auth-test", effectiveDate: "2026-01-01" }
  }
]

const refusedAuthorizations: ReadonlyArray<string | undefined> = [
  undefined, // missing
  "", // empty header
  "Bearer", // scheme without a key
  "Bearer ", // empty key
  "Bearer    ",
  "Bearer unknown-key",
  `Bearer ${API_KEY}x`, // a longer key that starts with a valid one
  `Bearer ${API_KEY.slice(0, -1)}`, // a prefix of a valid key
  `Bearer ${API_KEY.toUpperCase()}`,
  `Basic ${API_KEY}`, // right key, wrong scheme
  `Basic x${API_KEY}`, // another scheme of "Bearer "'s length
  `Token: ${API_KEY}`,
  API_KEY // right key, no scheme
]

const send = (server: TestServer, endpoint: KeyOnlyEndpoint, authorization: string | undefined) =>
  server.fetch(endpoint.path, {
    method: endpoint.method,
    headers: {
      ...(authorization === undefined ? {} : { authorization }),
      ...(endpoint.body === undefined ? {} : { "content-type": "application/json" })
    },
    ...(endpoint.body === undefined ? {} : { body: JSON.stringify(endpoint.body) })
  })

const expectUnauthorized = async (response: Response, label: string) => {
  expect(response.status, label).toBe(401)
  const body = await response.json()
  expect(body.cause, label).toEqual({ code: "UNAUTHORIZED" })
  expect(typeof body.message).toBe("string")
  expect(JSON.stringify(body)).not.toContain(API_KEY)
}

describe.each(dialects)("API keys on key-only endpoints [%s]", (dialect) => {
  const server = useServer(dialect, { apiKeys: [API_KEY, OTHER_KEY] })

  for (const endpoint of keyOnly) {
    it(`${endpoint.name} refuses a missing, empty or unknown key with 401 UNAUTHORIZED`, async () => {
      for (const authorization of refusedAuthorizations) {
        await expectUnauthorized(
          await send(server, endpoint, authorization),
          `${endpoint.name} with ${JSON.stringify(authorization)}`
        )
      }
    })

    it(`${endpoint.name} accepts every configured key`, async () => {
      for (const key of [API_KEY, OTHER_KEY]) {
        const response = await send(server, endpoint, `Bearer ${key}`)
        expect(response.status, `${endpoint.name}: ${await response.clone().text()}`).toBe(200)
      }
    })

    it(`${endpoint.name} reads the header as every route does: any case of the scheme, any spacing`, async () => {
      for (const authorization of [`bearer ${API_KEY}`, `BEARER ${API_KEY}`, `Bearer  \t${API_KEY}`]) {
        const response = await send(server, endpoint, authorization)
        expect(response.status, `${endpoint.name} with ${JSON.stringify(authorization)}`).toBe(200)
      }
    })
  }

  it("a refused request changes nothing: no legal document is published without a key", async () => {
    const endpoint = keyOnly[3]!
    const path = "/legal-documents/dpa/current"
    const body = { version: "9", hash: "sha256-never-published", effectiveDate: "2026-01-01" }
    await expectUnauthorized(await send(server, { ...endpoint, path, body }, "Bearer nope"), "publish")
    const rows = await server.db().query("SELECT * FROM svc_legal_documents WHERE hash = ?", [body.hash])
    expect(rows).toEqual([])
  })
})

describe.each(dialects)("an instance without apiKeys authenticates nothing [%s]", (dialect) => {
  const server = useServer(dialect, {})
  const emptyList = useServer(dialect, { apiKeys: [] })

  for (const endpoint of keyOnly) {
    it(`${endpoint.name} answers 401 to every key`, async () => {
      for (const instance of [server, emptyList]) {
        for (const authorization of [undefined, "Bearer ", `Bearer ${API_KEY}`, "Bearer undefined", "Bearer null"]) {
          await expectUnauthorized(
            await send(instance, endpoint, authorization),
            `${endpoint.name} with ${JSON.stringify(authorization)}`
          )
        }
      }
    })
  }
})
