import { HttpApi, type HttpApiEndpoint, HttpApiEndpoint as Endpoint, HttpApiGroup } from "@effect/platform"
import { SubjectsGroup, SvcApi } from "@svc/api"
import type { SubjectList, SubjectView } from "@svc/schema"
import { Schema } from "effect"
import { describe, expect, expectTypeOf, it } from "vitest"
import { jsonSuccessOf } from "../src/http/json-success.js"
import { subjectResponses } from "../src/subjects/http.js"

// The subjects answers are encoded by the compiled encoder, outside the platform's own encoding of
// a handler's value: they must encode with the success schema the contract declares for their
// endpoint, whatever that schema becomes. The type lines are checked by `npm run typecheck`.

const declaredSuccess = (name: string) => SvcApi.groups["subjects"]?.endpoints[name]?.successSchema

describe("subjects answers", () => {
  it("encode with the success schemas the contract declares for get and list", () => {
    for (const name of ["get", "list"] as const) {
      const declared = declaredSuccess(name)
      expect(declared).toBeDefined()
      expect(subjectResponses[name].schema.ast).toBe(declared?.ast)
    }
  })

  it("take the endpoint's success type as their value type", () => {
    type Endpoints = HttpApiGroup.HttpApiGroup.Endpoints<typeof SubjectsGroup>
    expectTypeOf(subjectResponses.get).parameter(0).toEqualTypeOf<
      HttpApiEndpoint.HttpApiEndpoint.SuccessWithName<Endpoints, "get">
    >()
    expectTypeOf(subjectResponses.get).parameter(0).toEqualTypeOf<SubjectView>()
    expectTypeOf(subjectResponses.list).parameter(0).toEqualTypeOf<
      HttpApiEndpoint.HttpApiEndpoint.SuccessWithName<Endpoints, "list">
    >()
    expectTypeOf(subjectResponses.list).parameter(0).toEqualTypeOf<SubjectList>()
  })
})

describe("jsonSuccessOf", () => {
  // `addSuccess` with a status annotates a copy of the schema: only the endpoint's copy answers 201.
  const Reading = Schema.Struct({ at: Schema.DateFromString })
  const Api = HttpApi.make("test").add(
    HttpApiGroup.make("readings").add(Endpoint.post("take", "/readings").addSuccess(Reading, { status: 201 }))
  )

  it("answers with the endpoint's own success schema: its status, content type and encoding", () => {
    const respond = jsonSuccessOf(Api, "readings", "take")
    const response = respond({ at: new Date(0) })
    expect(response.status).toBe(201)
    expect(response.body._tag).toBe("Uint8Array")
    if (response.body._tag !== "Uint8Array") return
    expect(response.body.contentType).toBe("application/json")
    expect(new TextDecoder().decode(response.body.body)).toBe(JSON.stringify({ at: "1970-01-01T00:00:00.000Z" }))
  })

  it("names only endpoints the contract has, and types the value as the endpoint's success", () => {
    expectTypeOf(jsonSuccessOf(Api, "readings", "take")).parameter(0).toEqualTypeOf<{ readonly at: Date }>()
    // @ts-expect-error: no such endpoint in the group
    expect(() => jsonSuccessOf(Api, "readings", "give")).toThrow("The contract has no endpoint readings.give")
    // @ts-expect-error: no such group
    expect(() => jsonSuccessOf(Api, "weather", "take")).toThrow("The contract has no endpoint weather.take")
  })
})
