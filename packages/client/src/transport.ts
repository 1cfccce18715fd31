import { HttpApi, HttpApiSchema, HttpMethod } from "@effect/platform"
import { SvcApi } from "@svc/api"
import { type Effect, Either, Option, ParseResult, Predicate, Schema } from "effect"
import type * as SchemaAST from "effect/SchemaAST"
import type { SvcApiClient } from "./effect-client.js"
import type { Plain } from "./plain.js"

/*
 * How `@svc/client` speaks HTTP: each endpoint of the `@svc/api` contract, read once with
 * `HttpApi.reflect` (as `HttpApiClient` reads it), turned into plain synchronous functions: encode
 * the request parts with the contract's schemas, build the URL and headers, decode the answer
 * with the schema of its status. The call itself is one `fetch` in the runner's promise code; no
 * Effect runtime runs per call (that cost as much as the request:
 * docs/adr/0074-client-calls-are-plain-fetch.md).
 */

/** The request parts of a derived-client method (type side without brands; the contract encodes them). */
export type PartsOf<F> = F extends (request: infer R) => unknown ? Plain<Omit<NonNullable<R>, "withResponse">> : never

type Groups = {
  readonly [G in keyof SvcApiClient]: { readonly [E in keyof SvcApiClient[G]]: PartsOf<SvcApiClient[G][E]> }
}

interface AnyParts {
  readonly path?: unknown
  readonly urlParams?: unknown
  readonly payload?: unknown
  readonly headers?: unknown
}

/** A request ready for `fetch`. */
export interface Prepared {
  readonly method: string
  readonly url: URL
  /** Lower-case names: the endpoint's own headers and the body's content type. */
  readonly headers: Readonly<Record<string, string>>
  readonly body: string | undefined
}

/** An answer as the runner read it: status, lower-case headers, the whole body. */
export interface Answer {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: Uint8Array
}

/** What the contract makes of an answer (`V`: the success body's type). */
export type Decoded<V = unknown> =
  | { readonly _tag: "Success"; readonly value: V }
  /** A documented error: an instance of the contract's error class (its `code` is static). */
  | { readonly _tag: "Failure"; readonly error: unknown }
  /** The status is not documented, or the body does not match its schema (`issue` says how). */
  | { readonly _tag: "Undocumented"; readonly issue: ParseResult.ParseError | undefined }

type Encode = (value: unknown) => Either.Either<unknown, ParseResult.ParseError>
type Decode<V = unknown> = (answer: Answer) => Decoded<V>

/** One endpoint of the contract; `V` is its success body's type (`unknown` as reflected). */
export interface Endpoint<V = unknown> {
  readonly method: string
  /** The route template (`/subjects/:id`): what events and documented codes name. */
  readonly path: string
  readonly prepare: (baseUrl: string, parts: AnyParts) => Either.Either<Prepared, ParseResult.ParseError>
  readonly decode: Decode<V>
}

const textDecoder = new TextDecoder()

/** The body decoder of one status: JSON (empty is `undefined`) or text, then the schema. */
const bodyDecoder = (ast: SchemaAST.AST): (answer: Answer) => Either.Either<unknown, ParseResult.ParseError> => {
  const decode = Schema.decodeUnknownEither(Schema.make(ast))
  const encoding = HttpApiSchema.getEncoding(ast)
  if (encoding.kind === "Text") return (answer) => decode(textDecoder.decode(answer.body))
  return (answer) => {
    const text = textDecoder.decode(answer.body)
    if (text === "") return decode(undefined)
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      return Either.left(new ParseResult.ParseError({ issue: new ParseResult.Type(ast, text, "Could not parse JSON") }))
    }
    return decode(parsed)
  }
}

const undocumented = (issue?: ParseResult.ParseError): Decoded => ({ _tag: "Undocumented", issue })

/** `:name` segments filled in as they are (the contract's path schemas only admit safe values). */
const fillPath = (template: string, params: unknown): string =>
  template.replace(
    /:(\w+)/g,
    (_, name: string) => String(Predicate.hasProperty(params, name) ? params[name] : undefined)
  )

/** Appends encoded URL parameters as `HttpClientRequest.appendUrlParams` does: arrays repeat the key. */
const appendParams = (url: URL, params: unknown) => {
  for (const [key, value] of Object.entries(Predicate.isObject(params) ? params : {})) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (item !== undefined) url.searchParams.append(key, String(item))
    }
  }
}

const lowerCased = (into: Record<string, string>, headers: unknown) => {
  for (const [name, value] of Object.entries(Predicate.isObject(headers) ? headers : {})) {
    if (value !== undefined) into[name.toLowerCase()] = String(value)
  }
}

const endpoints = new Map<string, Endpoint>()

HttpApi.reflect(SvcApi, {
  onGroup: () => {},
  onEndpoint: ({ endpoint, errors, group, successes }) => {
    const byStatus = new Map<number, Decode>()
    errors.forEach(({ ast }, status) => {
      if (Option.isNone(ast)) return byStatus.set(status, () => undocumented())
      const body = bodyDecoder(ast.value)
      byStatus.set(status, (answer) =>
        Either.match(body(answer), {
          onLeft: (issue) => undocumented(issue),
          onRight: (error): Decoded => ({ _tag: "Failure", error })
        }))
    })
    successes.forEach(({ ast }, status) => {
      if (Option.isNone(ast)) return byStatus.set(status, () => ({ _tag: "Success", value: undefined }))
      const body = bodyDecoder(ast.value)
      byStatus.set(status, (answer) =>
        Either.match(body(answer), {
          onLeft: (issue) => undocumented(issue),
          onRight: (value): Decoded => ({ _tag: "Success", value })
        }))
    })
    const encoder = <A, I>(schema: Option.Option<Schema.Schema<A, I, never>>): Encode | undefined =>
      Option.isNone(schema) ? undefined : Schema.encodeUnknownEither(schema.value)
    const encodePath = encoder(endpoint.pathSchema)
    const encodePayload = encoder(endpoint.payloadSchema)
    const encodeHeaders = encoder(endpoint.headersSchema)
    const encodeUrlParams = encoder(endpoint.urlParamsSchema)
    const payloadContentType = Option.isSome(endpoint.payloadSchema)
      ? HttpApiSchema.getEncoding(endpoint.payloadSchema.value.ast).contentType
      : "application/json"
    const hasBody = HttpMethod.hasBody(endpoint.method)

    const prepare = (baseUrl: string, parts: AnyParts): Either.Either<Prepared, ParseResult.ParseError> => {
      let path: string = endpoint.path
      if (parts.path !== undefined) {
        const encoded = encodePath === undefined ? Either.right(parts.path) : encodePath(parts.path)
        if (Either.isLeft(encoded)) return Either.left(encoded.left)
        path = fillPath(path, encoded.right)
      }
      const url = new URL(baseUrl.endsWith("/") && path.startsWith("/") ? baseUrl + path.slice(1) : baseUrl + path)
      const headers: Record<string, string> = {}
      let body: string | undefined
      if (encodePayload !== undefined) {
        const encoded = encodePayload(parts.payload)
        if (Either.isLeft(encoded)) return Either.left(encoded.left)
        if (hasBody) {
          body = JSON.stringify(encoded.right)
          headers["content-type"] = payloadContentType
        } else {
          appendParams(url, encoded.right)
        }
      }
      if (encodeHeaders !== undefined) {
        const encoded = encodeHeaders(parts.headers)
        if (Either.isLeft(encoded)) return Either.left(encoded.left)
        lowerCased(headers, encoded.right)
      }
      if (encodeUrlParams !== undefined) {
        const encoded = encodeUrlParams(parts.urlParams)
        if (Either.isLeft(encoded)) return Either.left(encoded.left)
        appendParams(url, encoded.right)
      }
      return Either.right({ method: endpoint.method, url, headers, body })
    }

    const decode: Decode = (answer) => {
      const byCode = byStatus.get(answer.status)
      return byCode === undefined ? undocumented() : byCode(answer)
    }
    endpoints.set(`${group.identifier}.${endpoint.name}`, {
      method: endpoint.method,
      path: endpoint.path,
      prepare,
      decode
    })
  }
})

/** One endpoint of the contract with its request parts, as a method describes its call. */
export interface Call<V = unknown> {
  readonly endpoint: Endpoint<V>
  readonly parts: AnyParts
}

/** The success body of `group.name` as the derived client types it (brands removed). */
export type SuccessBody<G extends keyof SvcApiClient, E extends keyof SvcApiClient[G]> = SvcApiClient[G][E] extends
  (...args: never) => Effect.Effect<infer A, unknown, unknown> ? Plain<Exclude<A, readonly [unknown, unknown]>> : never

/** Describes a call of `group.name` with the parts its derived-client method takes. */
export const callOf = <
  G extends keyof Groups & keyof SvcApiClient,
  E extends keyof Groups[G] & keyof SvcApiClient[G] & string
>(
  group: G,
  name: E,
  parts: Groups[G][E] & AnyParts
): Call<SuccessBody<G, E>> => {
  const endpoint = endpoints.get(`${group}.${name}`)
  if (endpoint === undefined) throw new Error(`@svc/api has no endpoint ${group}.${name}`)
  // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- HttpApi.reflect erases the schemas' types: this endpoint's success schema decodes exactly the body the derived client types for group.name
  return { endpoint: endpoint as Endpoint<SuccessBody<G, E>>, parts }
}

/** Names joined into one record, names in lower case; later layers win. */
export const mergeHeaders = (...layers: ReadonlyArray<Readonly<Record<string, string>>>): Record<string, string> => {
  const into: Record<string, string> = {}
  for (const layer of layers) lowerCased(into, layer)
  return into
}
