import { HttpApi, type HttpApiEndpoint, type HttpApiGroup, HttpApiSchema, HttpServerResponse } from "@effect/platform"
import { Schema } from "effect"
import { compileEncoder } from "../codec/compiled.js"

/**
 * The success answer of a JSON endpoint, encoded with the compiled encoder of its success schema
 * (`codec/compiled.ts`) rather than the platform's interpreting one. What goes out is what the
 * platform would send: the same body, the schema's status, `application/json`. For the answers
 * whose size grows with what a subject holds (record lists); small answers gain nothing from it.
 * `schema` is the schema it encodes with, for tests to compare with the contract's.
 */
export interface JsonSuccess<A, I = unknown> {
  (value: A): HttpServerResponse.HttpServerResponse
  readonly schema: Schema.Schema<A, I, never>
}

export const jsonSuccess = <A, I>(schema: Schema.Schema<A, I, never>): JsonSuccess<A, I> => {
  const encode = compileEncoder(schema)
  const status = HttpApiSchema.getStatusSuccess(schema)
  const { contentType } = HttpApiSchema.getEncoding(schema.ast)
  const respond = (value: A) => HttpServerResponse.unsafeJson(encode(value), { status, contentType })
  return Object.assign(respond, { schema })
}

type EndpointsOf<Groups extends HttpApiGroup.HttpApiGroup.Any, Group extends string> =
  HttpApiGroup.HttpApiGroup.EndpointsWithName<Groups, Group>

type Success<Groups extends HttpApiGroup.HttpApiGroup.Any, Group extends string, Name extends string> =
  HttpApiEndpoint.HttpApiEndpoint.SuccessWithName<EndpointsOf<Groups, Group>, Name>

/**
 * `jsonSuccess` of the success schema that `api` declares for endpoint `name` of group `group`,
 * read from the contract itself: a handler answering through it encodes with whatever the contract
 * declares, and its value type is the endpoint's `Success` type, so `handlers.handle(name, ...)`
 * is checked against the endpoint as when the handler returns the value for the platform to encode.
 */
export const jsonSuccessOf = <
  Groups extends HttpApiGroup.HttpApiGroup.Any,
  E,
  R,
  Group extends HttpApiGroup.HttpApiGroup.Name<Groups>,
  Name extends HttpApiEndpoint.HttpApiEndpoint.Name<EndpointsOf<Groups, Group>>
>(
  api: HttpApi.HttpApi<string, Groups, E, R>,
  group: Group,
  name: Name
): JsonSuccess<Success<Groups, Group, Name>> => {
  // `reflect` hands out the groups with their endpoints' types erased: the success schema's AST is
  // the contract's own, typed again here as the endpoint `group`/`name` of `api`'s type declares it.
  const groups: Array<HttpApiGroup.HttpApiGroup.AnyWithProps> = []
  HttpApi.reflect(api, { onGroup: ({ group }) => groups.push(group), onEndpoint: () => {} })
  const endpoint = groups.find(({ identifier }) => identifier === group)?.endpoints[name]
  if (endpoint === undefined) throw new Error(`The contract has no endpoint ${group}.${name}`)
  return jsonSuccess(Schema.make<Success<Groups, Group, Name>, unknown, never>(endpoint.successSchema.ast))
}
