// Request bodies (docs/adr/0013-one-request-body-gate.md): every route with a body takes
// `application/json` and nothing else, needs a body, and refuses nesting past the depth bound
// with a clean 4xx, before anything is decoded or stored. The same on every dialect and through
// the web-standard handler.
import { HttpLayerRouter } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { svcInstance } from "@svc/backend"
import { Effect, Layer } from "effect"
import { bearer, cookieSave, newSubjectId, subjectRow } from "./support/consent-saves.js"
import { dialects } from "./support/dialects.js"
import { manifest } from "./support/policy-manifest.js"
import { useServer } from "./support/server.js"
import { sessionReport } from "./support/session-report.js"

const API_KEY = "request-bodies-key-0123456789abcdef"
const key = bearer(API_KEY)
const sessionHeaders = { "x-svc-version": "3.1.0" }

const deepArray = (depth: number) => "[".repeat(depth) + "]".repeat(depth)
const deepObject = (depth: number) => '{"a":'.repeat(depth) + "1" + "}".repeat(depth)

const report = sessionReport

interface BodyRoute {
  readonly label: string
  readonly method: string
  readonly path: () => string
  readonly headers: Record<string, string>
  /** A valid body for the route, as an object. */
  readonly valid: () => Record<string, unknown>
  /** The status a valid JSON body gets. */
  readonly ok: number
}

const expectRefusal = async (response: Response, status: number, code: string, label: string) => {
  const text = await response.text()
  expect(response.status, `${label}: ${text}`).toBe(status)
  const body = JSON.parse(text)
  expect(body.cause.code, label).toBe(code)
  expect(typeof body.message, label).toBe("string")
  expect(body.message.length, label).toBeGreaterThan(0)
  return body.message as string
}

describe.each(dialects)("request bodies [%s]", (dialect) => {
  const server = useServer(dialect, { apiKeys: [API_KEY], manifest })
  let linkable = ""

  const routes: ReadonlyArray<BodyRoute> = [
    {
      label: "POST /subjects",
      method: "POST",
      path: () => "/subjects",
      headers: {},
      valid: () => cookieSave(),
      ok: 200
    },
    {
      label: "PATCH /subjects/:id",
      method: "PATCH",
      path: () => `/subjects/${linkable}`,
      headers: {},
      valid: () => ({ externalId: "user-1" }),
      ok: 200
    },
    {
      label: "PUT /legal-documents/:type/current",
      method: "PUT",
      path: () => "/legal-documents/privacy_policy/current",
      headers: key,
      valid: () => ({ version: "1", hash: "h-1", effectiveDate: "2026-01-01T00:00:00Z" }),
      ok: 200
    },
    {
      label: "POST /sessions",
      method: "POST",
      path: () => "/sessions",
      headers: sessionHeaders,
      valid: () => report,
      ok: 204
    }
  ]

  const send = (route: BodyRoute, body: BodyInit | undefined, headers: Record<string, string>) =>
    server.fetch(route.path(), {
      method: route.method,
      headers: { ...route.headers, ...headers },
      ...(body === undefined ? {} : { body })
    })

  it("accepts application/json with or without parameters", async () => {
    const subject = cookieSave()
    expect(
      (await server.fetch("/subjects", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(subject)
      })).status
    ).toBe(200)
    linkable = subject.subjectId as string
    for (const contentType of ["application/json", "application/json; charset=utf-8",
      "Application/JSON;Charset=UTF-8"])
    {
      for (const route of routes) {
        const response = await send(route, JSON.stringify(route.valid()), { "content-type": contentType })
        expect(response.status, `${route.label} ${contentType}: ${await response.clone().text()}`).toBe(route.ok)
      }
    }
  })

  it("refuses a body nested past the bound with 400 INVALID_REQUEST, arrays anywhere and objects in a known field", async () => {
    for (const route of routes) {
      for (const [shape, text] of [
        ["array", deepArray(5350)],
        ["array in a field", JSON.stringify(route.valid()).replace(/}$/, `,"deep":${deepArray(5350)}}`)],
        ["objects in a known field",
          JSON.stringify({ ...route.valid(), preferences: "X", externalId: "X", version: "X", policy: "X" })
            .replace(/"X"/g, deepObject(5350))],
        ["just past the bound", JSON.stringify(route.valid()).replace(/}$/, `,"deep":${deepArray(32)}}`)]
      ] as const) {
        const message = await expectRefusal(
          await send(route, text, { "content-type": "application/json" }),
          400,
          "INVALID_REQUEST",
          `${route.label} ${shape}`
        )
        expect(message).toMatch(/nested/)
      }
    }
  })

  it("decodes a body nested up to the bound as usual", async () => {
    const save = cookieSave()
    const body = JSON.stringify(save).replace(/}$/, `,"deep":${deepArray(31)}}`)
    const response = await server.fetch("/subjects", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body
    })
    expect(response.status, await response.clone().text()).toBe(200)
    expect(await subjectRow(server, save.subjectId as string)).toBeDefined()
  })

  it("refuses form, multipart (good, bad or missing boundary), text and untyped bodies with 415 and stores nothing", async () => {
    for (const route of routes) {
      const fields = Object.entries(route.valid()).map((
        [name, value]
      ) => [name, typeof value === "object" ? JSON.stringify(value) : String(value)])
      const form = new URLSearchParams(fields).toString()
      const multipart = new FormData()
      for (const [name, value] of fields) multipart.append(name!, value!)
      const encoded = new Response(multipart)
      const multipartType = encoded.headers.get("content-type")!
      const multipartBody = new Uint8Array(await encoded.arrayBuffer())
      for (const [label, contentType, body] of [
        ["urlencoded", "application/x-www-form-urlencoded", form],
        ["urlencoded with charset", "application/x-www-form-urlencoded; charset=utf-8", form],
        ["multipart", multipartType, multipartBody],
        ["multipart, bad boundary", 'multipart/form-data; boundary="', multipartBody],
        ["multipart, missing boundary", "multipart/form-data", multipartBody],
        ["text/plain", "text/plain;charset=UTF-8", JSON.stringify(route.valid())],
        ["a json lookalike", "application/jsonx", JSON.stringify(route.valid())],
        ["json in a parameter", "text/plain; x=application/json", JSON.stringify(route.valid())],
        ["no content type", undefined, new TextEncoder().encode(JSON.stringify(route.valid()))]
      ] as const) {
        const response = await send(route, body, {
          ...(contentType === undefined ? {} : { "content-type": contentType }),
          origin: "https://evil.example"
        })
        await expectRefusal(response, 415, "UNSUPPORTED_MEDIA_TYPE", `${route.label} ${label}`)
      }
    }
  })

  it("refuses the cross-site form post from the issue: nothing is recorded as proof", async () => {
    const subjectId = newSubjectId()
    const response = await server.fetch("/subjects", {
      method: "POST",
      headers: { origin: "https://evil.example", "content-type": "application/x-www-form-urlencoded" },
      body: `type=privacy_policy&domain=example.com&subjectId=${subjectId}&givenAt=2026-11-22T00:00:00Z&policyHash=x`
    })
    await expectRefusal(response, 415, "UNSUPPORTED_MEDIA_TYPE", "form save")
    expect(await subjectRow(server, subjectId)).toBeUndefined()
  })

  it("refuses a request without a body on a route that needs one with 400 naming what is missing", async () => {
    for (const route of routes) {
      for (const [label, headers, body] of [
        ["no body, no content type", {}, undefined],
        ["no body, json content type", { "content-type": "application/json" }, undefined],
        ["empty json body", { "content-type": "application/json" }, ""],
        ["white space", { "content-type": "application/json" }, " \n"]
      ] as const) {
        const message = await expectRefusal(
          await send(route, body, headers),
          400,
          "INVALID_REQUEST",
          `${route.label} ${label}`
        )
        expect(message, `${route.label} ${label}`).toMatch(/JSON body/)
      }
    }
  })

  it("advertises JSON request bodies only in /spec.json", async () => {
    const spec = await (await server.fetch("/spec.json")).json() as {
      paths: Record<string, Record<string, { requestBody?: { content: Record<string, unknown> } }>>
    }
    const bodies = Object.values(spec.paths).flatMap((operations) => Object.values(operations)).flatMap((op) =>
      op.requestBody === undefined ? [] : [op.requestBody]
    )
    expect(bodies.length).toBeGreaterThanOrEqual(routes.length)
    for (const body of bodies) expect(Object.keys(body.content)).toEqual(["application/json"])
  })
})

describe("request bodies through svcInstance().handler", () => {
  it("refuses deep nesting, forms and missing bodies with the same 4xx", async () => {
    const instance = svcInstance({ database: { dialect: "sqlite", url: ":memory:" }, basePath: "/svc" }, {
      migrate: true
    })
    try {
      const post = (body: BodyInit | undefined, contentType?: string) =>
        instance.handler(
          new Request("http://host.example/svc/subjects", {
            method: "POST",
            ...(contentType === undefined ? {} : { headers: { "content-type": contentType } }),
            ...(body === undefined ? {} : { body })
          })
        )
      await expectRefusal(await post(deepArray(5350), "application/json"), 400, "INVALID_REQUEST", "deep")
      await expectRefusal(await post("a=b", "application/x-www-form-urlencoded"), 415, "UNSUPPORTED_MEDIA_TYPE", "form")
      await expectRefusal(await post("--x\r\n", "multipart/form-data"), 415, "UNSUPPORTED_MEDIA_TYPE", "multipart")
      await expectRefusal(await post(undefined), 400, "INVALID_REQUEST", "no body")
      const ok = await post(JSON.stringify(cookieSave()), "application/json; charset=utf-8")
      expect(ok.status, await ok.clone().text()).toBe(200)
    } finally {
      await instance.dispose()
    }
  })
})

describe("request bodies when a host app mounts svc under its own prefix", () => {
  it("gates the same routes: the route's recorded prefix is stripped, whatever it is", async () => {
    const instance = svcInstance({ database: { dialect: "sqlite", url: ":memory:" }, basePath: "/consent" }, {
      migrate: true
    })
    const hostPrefix = Layer.effect(
      HttpLayerRouter.HttpRouter,
      Effect.map(HttpLayerRouter.HttpRouter, (router) => router.prefixed("/host"))
    )
    const web = HttpLayerRouter.toWebHandler(Layer.provide(instance.layer, hostPrefix), { disableLogger: true })
    try {
      // The platform joins a nested prefix inner-first: basePath "/consent" on a router prefixed "/host".
      const post = (body: string, contentType: string) =>
        web.handler(
          new Request("http://host.example/consent/host/subjects", {
            method: "POST",
            headers: { "content-type": contentType },
            body
          })
        )
      await expectRefusal(await post("a=b", "application/x-www-form-urlencoded"), 415, "UNSUPPORTED_MEDIA_TYPE", "form")
      await expectRefusal(await post(deepArray(5350), "application/json"), 400, "INVALID_REQUEST", "deep")
      const ok = await post(JSON.stringify(cookieSave()), "application/json")
      expect(ok.status, await ok.clone().text()).toBe(200)
    } finally {
      await web.dispose()
      await instance.dispose()
    }
  })
})
