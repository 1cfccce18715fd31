// Generators for the hostile-input suite (test/hostile-input.test.ts): every route of the HttpApi
// contract, read from `SvcApi`, with bodies, headers, paths and query strings a hostile or broken
// client could send. Plausible values come from the contract's own schemas (`Arbitrary.make`), so
// a request often gets past decoding and reaches the services and the database, and is then bent.
import { HttpApi } from "@effect/platform"
import { SvcApi } from "@svc/api"
import { Arbitrary, Option, Schema } from "effect"
import fc from "fast-check"

export interface RouteTarget {
  /** `METHOD /template`, or a name for the routes outside the contract. */
  readonly label: string
  readonly method: string
  /** The path template, `:name` for parameters. */
  readonly path: string
  /** A plausible, encoded value per path parameter. */
  readonly pathParams: fc.Arbitrary<Record<string, string>> | undefined
  readonly query: fc.Arbitrary<Record<string, unknown>> | undefined
  /** The headers the contract declares for the route. */
  readonly headerNames: ReadonlyArray<{ readonly name: string; readonly optional: boolean }>
  readonly payload: fc.Arbitrary<unknown> | undefined
  /** Answers with a document that is not JSON (bundles, the docs page), never checked for leaks on success. */
  readonly document: boolean
}

export interface HostileRequest {
  readonly method: string
  /** Path and query, relative to the server's base URL. */
  readonly url: string
  readonly headers: ReadonlyArray<readonly [string, string]>
  readonly body: string | Uint8Array | undefined
  /** The body was sent as plain `application/json` (with or without parameters). */
  readonly jsonBody: boolean
}

/** A value of `schema` as it travels on the wire, generated from its type side and encoded. */
const encodedArbitrary = (schema: Schema.Schema<any, any>): fc.Arbitrary<any> => {
  const encode = Schema.encodeUnknownOption(schema)
  return Arbitrary.make(schema).map((value) => {
    try {
      return Option.getOrUndefined(encode(value))
    } catch {
      return undefined // e.g. an invalid Date the schema's arbitrary produced
    }
  })
}

const structKeys = (
  schema: Schema.Schema<any, any>
): ReadonlyArray<{ readonly name: string; readonly optional: boolean }> => {
  const ast = Schema.encodedSchema(schema).ast
  return ast._tag === "TypeLiteral"
    ? ast.propertySignatures.map((p) => ({ name: String(p.name), optional: p.isOptional }))
    : []
}

/** Every endpoint of the contract: a route added to `SvcApi` is fuzzed without touching the suite. */
export const contractRoutes = (): ReadonlyArray<RouteTarget> => {
  const targets: Array<RouteTarget> = []
  HttpApi.reflect(SvcApi, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => {
      const headersSchema = Option.getOrUndefined(endpoint.headersSchema) as Schema.Schema<any, any> | undefined
      targets.push({
        label: `${endpoint.method} ${endpoint.path}`,
        method: endpoint.method,
        path: endpoint.path,
        pathParams: Option.match(endpoint.pathSchema, {
          onNone: () => undefined,
          onSome: (s) => encodedArbitrary(s as never)
        }),
        query: Option.match(endpoint.urlParamsSchema, {
          onNone: () => undefined,
          onSome: (s) => encodedArbitrary(s as never)
        }),
        headerNames: headersSchema === undefined ? [] : structKeys(headersSchema),
        payload: Option.match(endpoint.payloadSchema, {
          onNone: () => undefined,
          onSome: (s) => encodedArbitrary(s as never)
        }),
        document: false
      })
    }
  })
  return targets
}

/** Routes outside the contract: script bundles, the OpenAPI document, the docs page, unknown paths. */
export const rawRoutes = (scriptPaths: ReadonlyArray<string>): ReadonlyArray<RouteTarget> => [
  ...scriptPaths.map((path) => rawTarget(`GET ${path}`, path, true)),
  rawTarget("GET /spec.json", "/spec.json", false),
  rawTarget("GET /docs", "/docs", true),
  rawTarget("unknown paths", "/:a/:b", false)
]

const rawTarget = (label: string, path: string, document: boolean): RouteTarget => ({
  label,
  method: "GET",
  path,
  pathParams: undefined,
  query: undefined,
  headerNames: [],
  payload: undefined,
  document
})

// ---------------------------------------------------------------- values

/**
 * Strings that have broken parsers before. None contains the markers the leak check looks for
 * (upper-case SQL keywords, file paths, stack frames), so an echo is never mistaken for a leak.
 */
const nasty = [
  "",
  " ",
  "  padded  ",
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "hasOwnProperty",
  "valueOf",
  "null",
  "undefined",
  "NaN",
  "Infinity",
  "-1",
  "0",
  "1e999",
  "true",
  "[]",
  "{}",
  "sub_",
  `sub_${"a".repeat(300)}`,
  "sub_../../x",
  "cns_x",
  "pol_x",
  "' or '1'='1",
  "1; drop table t; --",
  "\\' union select 1 --",
  '"',
  "\\",
  "\\u0000",
  "%",
  "%00",
  "%zz",
  "../../../etc/passwd",
  "..\\..\\windows",
  "<script>alert(1)</script>",
  "${jndi:ldap://x}",
  "{{7*7}}",
  "$(id)",
  "\u0000",
  "a\u0000b",
  "\u0007",
  "\u001b[31m",
  "\r\n",
  "\t",
  "\u007f",
  "\u0085",
  "\u2028",
  "\u202e",
  "\ufeff",
  "\uffff",
  "\ud800",
  "a\udfffb",
  "\udc00\ud800",
  "\ud83d",
  "🙂",
  "𝕏",
  "é",
  "e\u0301",
  "ǅ",
  "ß",
  "İ",
  "privacy_policy",
  "privacy_policy_",
  `privacy_policy_${"x".repeat(40)}`,
  "cookie_banner",
  "dpa",
  "terms_and_conditions_eu",
  "2026-01-01",
  "2026-02-30",
  "9999-12-31T23:59:59Z",
  "0000-00-00",
  "+275760-09-13T00:00:00.001Z",
  "-271821-04-20T00:00:00.000Z",
  "1970-01-01T00:00:00Z",
  "2026-01-01T00:00:00+25:00",
  "DE",
  "US-CA",
  "xx-XX",
  "en;q=0.9,*;q=0.1",
  "*",
  "0.0.0.0",
  "::1",
  "example.com",
  "EXAMPLE.com.",
  "xn--nxasmq6b",
  "a..b",
  ".",
  "..",
  "opt-in",
  "matched",
  "route",
  "measurement",
  "marketing"
]

/** Long values: mostly a few kB, sometimes past the 128 kB body limit. */
const b64 = (value: string) => Buffer.from(value).toString("base64url")

/** Unsigned or forged JWTs for the token fields: odd headers and claims, a payload nested far past the body bound. */
const forgedTokens = [
  `${b64('{"alg":"none"}')}.${b64('{"iat":1}')}.`,
  `${b64('{"alg":"HS256"}')}.${b64('{"iat":1e308,"exp":-1e308}')}.${b64("x")}`,
  `${b64('{"alg":"HS256"}')}.${b64("[".repeat(5000) + "]".repeat(5000))}.${b64("x")}`,
  `${b64('{"alg":"HS256","crit":["__proto__"]}')}.${b64('{"__proto__":{"iat":1}}')}.x`,
  `${b64('{"alg":"RS256"}')}.${b64('{"sub":"user-1","iat":"1"}')}.x`,
  "a.b.c",
  "..",
  "e30.e30.",
  "e30.e30.e30.e30",
  "%%%.%%%.%%%"
]

const longString = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 200, max: 5000 }) },
  { weight: 1, arbitrary: fc.integer({ min: 100_000, max: 200_000 }) }
).chain((n) => fc.constantFrom("x", "é", "\u0000", "🙂", "[").map((c) => c.repeat(n)))

/** Short hostile strings: what goes into paths, queries and headers. */
const shortHostile: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...nasty) },
  { weight: 1, arbitrary: fc.constantFrom(...forgedTokens) },
  { weight: 3, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
  {
    weight: 1,
    arbitrary: fc.string({ unit: fc.integer({ min: 0, max: 0x1f }).map((c) => String.fromCharCode(c)), maxLength: 10 })
  },
  { weight: 1, arbitrary: fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => `a${String.fromCharCode(c)}b`) }
)

export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 10, arbitrary: shortHostile },
  { weight: 1, arbitrary: longString }
)

const hostileNumber: fc.Arbitrary<number> = fc.oneof(
  fc.double(),
  fc.integer(),
  fc.constantFrom(
    Number.MAX_SAFE_INTEGER + 2,
    Number.MIN_SAFE_INTEGER - 2,
    -0,
    1e308,
    -1e308,
    5e-324,
    8.64e15,
    8.64e15 + 1,
    -8.64e15 - 1,
    2 ** 31,
    2 ** 32,
    2 ** 53,
    2 ** 63,
    2 ** 64,
    -1,
    0.5,
    1e21,
    1.7976931348623157e308
  )
)

const hostileKey: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      "__proto__",
      "constructor",
      "prototype",
      "toString",
      "valueOf",
      "hasOwnProperty",
      "__defineGetter__",
      "then"
    )
  },
  { weight: 2, arbitrary: shortHostile }
)

/** An object with exactly these own keys (`__proto__` included, as JSON.parse would make it). */
const ownObject = (entries: ReadonlyArray<readonly [string, unknown]>) => {
  const object: Record<string, unknown> = {}
  for (const [key, value] of entries)
    Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true })
  return object
}

/** A small JSON value of the wrong shape: strings, numbers, nested arrays and objects with hostile keys. */
export const hostileValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    hostileString,
    hostileNumber,
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.array(fc.tuple(hostileKey, tie("value")), { maxLength: 4 }).map(ownObject)
  )
})).value

// ---------------------------------------------------------------- bodies

/** Every object and array inside `value` (itself included), for mutations to pick from. */
const containers = (value: unknown, out: Array<Record<string, unknown> | Array<unknown>> = []) => {
  if (value !== null && typeof value === "object") {
    out.push(value as Record<string, unknown>)
    for (const child of Object.values(value)) containers(child, out)
  }
  return out
}

interface Mutation {
  readonly at: number
  readonly op: "replace" | "add" | "delete" | "wrap"
  readonly key: string
  readonly value: unknown
}

const mutation: fc.Arbitrary<Mutation> = fc.record({
  at: fc.nat(),
  op: fc.constantFrom("replace", "replace", "add", "delete", "wrap"),
  key: hostileKey,
  value: hostileValue
})

/** Bends a plausible body: replaces, adds, removes or wraps members, never touching the original. */
const mutate = (original: unknown, mutations: ReadonlyArray<Mutation>): unknown => {
  const value = structuredClone(original)
  for (const m of mutations) {
    const targets = containers(value)
    if (targets.length === 0) return m.value
    const target = targets[m.at % targets.length]!
    const keys = Object.keys(target)
    const existing = keys.length === 0 ? undefined : keys[m.at % keys.length]!
    const define = (key: string, v: unknown) =>
      Object.defineProperty(target, key, { value: v, enumerable: true, writable: true, configurable: true })
    if (m.op === "add" || existing === undefined) define(Array.isArray(target) ? String(target.length) : m.key, m.value)
    else if (m.op === "delete") delete (target as Record<string, unknown>)[existing]
    else if (m.op === "wrap") define(existing, [(target as Record<string, unknown>)[existing]])
    else define(existing, m.value)
  }
  return value
}

const nest = (depth: number, inner: string, kind: "array" | "object") =>
  kind === "array" ? "[".repeat(depth) + inner + "]".repeat(depth) : '{"a":'.repeat(depth) + inner + "}".repeat(depth)

const hugeNumberLiteral = fc.constantFrom(
  "1e400",
  "-1e400",
  "1e-400",
  "123456789012345678901234567890",
  "-0",
  "0.0000000000000000000000000001",
  "1.7976931348623159e308",
  "9007199254740993",
  "00",
  "01",
  "1.",
  ".5",
  "+1",
  "0x10",
  "NaN",
  "Infinity",
  "1_000"
)

/** Text-level damage no JSON value can express: duplicate keys, deep nesting, odd number literals, truncation, bad bytes. */
const rawJson = (plausible: fc.Arbitrary<unknown>): fc.Arbitrary<string | Uint8Array> => {
  const text = plausible.map((v) => JSON.stringify(v) ?? "null")
  const intoObject = (
    t: string,
    member: string
  ) => (/^\{\s*\}$/.test(t) ? `{${member}}` : t.startsWith("{") ? `{${member},${t.slice(1)}` : t)
  return fc.oneof(
    // Duplicate keys: the same member twice, with a hostile value first or last.
    fc.tuple(text, hostileValue, fc.boolean()).map(([t, v, last]) => {
      const key = /^\{"((?:[^"\\]|\\.)*)"/.exec(t)?.[1] ?? "type"
      const member = `"${key}":${JSON.stringify(v) ?? "null"}`
      return last && t.endsWith("}") && t !== "{}" ? `${t.slice(0, -1)},${member}}` : intoObject(t, member)
    }),
    // Nesting around the bound and far past it, as a whole body or inside a member.
    fc.tuple(
      text,
      fc.oneof(fc.integer({ min: 28, max: 36 }), fc.integer({ min: 1000, max: 30_000 })),
      fc.constantFrom("array" as const, "object" as const),
      fc.boolean()
    )
      .map((
        [t, depth, kind, inside]
      ) => (inside
        ? intoObject(t, `"deep":${nest(depth, "1", kind)}`)
        : nest(depth, kind === "array" ? "" : "1", kind))
      ),
    // An odd number literal in place of the first number, or as a new member.
    fc.tuple(text, hugeNumberLiteral).map((
      [t, n]
    ) => (/\d/.test(t) ? t.replace(/-?\d+(\.\d+)?([eE][+-]?\d+)?/, n) : intoObject(t, `"n":${n}`))),
    // Cut short.
    fc.tuple(text, fc.nat()).map(([t, at]) => t.slice(0, at % Math.max(1, t.length))),
    // Invalid UTF-8 inside a string.
    fc.tuple(text, fc.constantFrom([0xff], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x82]))
      .map(([t, bad]) => {
        const bytes = new TextEncoder().encode(intoObject(t, '"bad":"\u0001"'))
        const at = bytes.indexOf(0x01)
        if (at === -1) return bytes
        return new Uint8Array([...bytes.subarray(0, at), ...bad, ...bytes.subarray(at + 1)])
      }),
    // Not JSON at all.
    fc.oneof(
      hostileString,
      fc.constantFrom(
        "{",
        "}",
        "[",
        '{"a":}',
        "{'a':1}",
        '{"a":1,}',
        "[1,]",
        "\ufeff{}",
        "/* */{}",
        '{"a":1}{"b":2}',
        "null",
        "true",
        '"x"'
      )
    )
  )
}

/** Bodies: plausible ones (so the services and the database run), bent ones, wrong shapes, broken text. */
export const bodyArbitrary = (payload: fc.Arbitrary<unknown> | undefined): fc.Arbitrary<string | Uint8Array> => {
  const plausible = payload ?? hostileValue
  return fc.oneof(
    { weight: 4, arbitrary: plausible.map((v) => JSON.stringify(v) ?? "") },
    {
      weight: 5,
      arbitrary: fc.tuple(plausible, fc.array(mutation, { minLength: 1, maxLength: 3 })).map(([v, ms]) =>
        JSON.stringify(mutate(v, ms)) ?? ""
      )
    },
    { weight: 2, arbitrary: hostileValue.map((v) => JSON.stringify(v) ?? "") },
    { weight: 3, arbitrary: rawJson(plausible) }
  )
}

// ---------------------------------------------------------------- headers, paths, queries

/** A header value fetch will send: Latin-1, no CR, LF or NUL; other control characters become obs-text bytes. */
const headerSafe = (s: string) =>
  [...s.slice(0, 4000)].map((ch) => {
    const c = ch.charCodeAt(0)
    return c === 9 || (c >= 0x20 && c <= 0x7e) || (c >= 0x80 && c <= 0xff) ? ch : String.fromCharCode(0x80 + (c % 0x80))
  }).join("").trim()

const jsonTypes = ["application/json", "application/json; charset=utf-8", "APPLICATION/JSON", "application/json ; x=y",
  "application/json;charset=utf-16"]
const otherTypes = [
  "application/x-www-form-urlencoded",
  "multipart/form-data",
  "multipart/form-data; boundary=",
  'multipart/form-data; boundary="x',
  "multipart/form-data; boundary=----x",
  "text/plain",
  "text/plain;charset=UTF-8",
  "application/jsonp",
  "application/json-patch+json",
  "application/vnd.api+json",
  "application/json, text/plain",
  "text/json",
  "*/*",
  "",
  "application/octet-stream",
  "application/xml"
]

export const contentType: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...jsonTypes) },
  { weight: 3, arbitrary: fc.constantFrom(...otherTypes) },
  { weight: 1, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: shortHostile.map(headerSafe) }
)

/** Media types the server must read as JSON (the gate parses the same way; this is the oracle's own copy). */
export const isJsonType = (type: string | undefined) =>
  type !== undefined && type.split(";")[0]!.trim().toLowerCase() === "application/json"

const authorization = (apiKey: string): fc.Arbitrary<string | undefined> =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constant(`Bearer ${apiKey}`) },
    { weight: 3, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: shortHostile.map((s) => `Bearer ${headerSafe(s)}`) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        "Bearer",
        "Bearer ",
        `bearer ${apiKey}`,
        `Bearer  ${apiKey}`,
        `Bearer ${apiKey} x`,
        `Bearer ${apiKey}x`,
        "Basic dXNlcjpwYXNz",
        apiKey
      )
    }
  )

const commonHeaders = [
  "origin",
  "x-request-id",
  "x-svc-version",
  "x-svc-policy-contract",
  "x-svc-country",
  "x-svc-region",
  "x-svc-gpc",
  "x-svc-experiment",
  "x-svc-vendors",
  "accept-language",
  "sec-gpc",
  "if-none-match",
  "x-svc-client-ip",
  "x-forwarded-for",
  "x-real-ip",
  "forwarded",
  "user-agent",
  "cookie",
  "accept",
  "sec-purpose",
  "purpose",
  "x-http-method-override",
  "access-control-request-method",
  "range",
  "accept-encoding"
]

const headerValue = (name: string): fc.Arbitrary<string> => {
  const plausible: Record<string, ReadonlyArray<string>> = {
    origin: ["https://shop.example", "https://evil.example", "null", "file://", "https://shop.example:99999"],
    "x-svc-version": ["3.1.0", "0.0.0-alpha", ""],
    "x-svc-policy-contract": ["1", "2", "0x1"],
    "x-svc-gpc": ["1", "0", "yes"],
    "sec-gpc": ["1"],
    "if-none-match": ["*", 'W/"x"', '""'],
    "x-svc-client-ip": ["203.0.113.7", "2001:db8::1", "999.1.1.1", "::ffff:1.2.3.4", "1.2.3.4, 5.6.7.8"],
    "x-forwarded-for": ["203.0.113.7, 10.0.0.1", "unknown"],
    "accept-language": ["de-DE,de;q=0.9", "*", "zz"],
    "x-svc-experiment": ["exp=a", "=", "%zz=%zz"],
    "x-http-method-override": ["DELETE", "PUT"],
    "accept-encoding": ["gzip, br", "identity;q=0"]
  }
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...(plausible[name] ?? ["x"])) },
    { weight: 4, arbitrary: shortHostile.map(headerSafe) },
    { weight: 1, arbitrary: fc.integer({ min: 100, max: 12_000 }).map((n) => "a".repeat(n)) }
  )
}

/** Headers, in sending order; a name may appear twice (fetch joins them with a comma). */
export const headersArbitrary = (target: RouteTarget, apiKey: string): fc.Arbitrary<Array<[string, string]>> => {
  const names = [...new Set([...commonHeaders, ...target.headerNames.map((h) => h.name)])]
  // The route's required headers are there in most cases, so they do not stop every request; optional ones come with the rest.
  const required = target.headerNames.filter((h) => !h.optional)
  const declared = required.length === 0
    ? fc.constant([])
    : fc.tuple(
      ...required.map(({ name }) =>
        fc.option(headerValue(name).map((v) => [name, v] as [string, string]), { freq: 8, nil: undefined })
      )
    )
      .map((pairs) => pairs.filter((p) => p !== undefined))
  return fc.tuple(
    authorization(apiKey),
    declared,
    fc.subarray(names, { maxLength: 5 }).chain((chosen) =>
      chosen.length === 0
        ? fc.constant([])
        : fc.tuple(...chosen.map((n) => headerValue(n).map((v) => [n, v] as [string, string])))
    ),
    fc.option(
      fc.constantFrom(...names).chain((n) =>
        fc.tuple(headerValue(n), headerValue(n)).map(([a, b]) => [[n, a], [n, b]] as Array<[string, string]>)
      ),
      { freq: 8 }
    )
  ).map(([auth, own, chosen, twice]) => [
    ...(auth === undefined ? [] : [["authorization", auth] as [string, string]]),
    ...own,
    ...chosen,
    ...(twice ?? [])
  ])
}

const badEncoding = fc.constantFrom(
  "%",
  "%z",
  "%zz",
  "%E0%A4%A",
  "%00",
  "%ff",
  "%fe%ff",
  "%2f",
  "%2F..%2F",
  "%2e%2e",
  "..",
  ".",
  "%c0%af",
  "%ed%a0%80",
  "a%20b",
  "%25",
  "%u0041",
  "+",
  "%0a",
  "%0d%0a",
  "%7f",
  "%e2%80%ae"
)

const segment = (plausible: fc.Arbitrary<string> | undefined): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: plausible === undefined ? 0 : 5, arbitrary: plausible ?? fc.constant("") },
    { weight: 2, arbitrary: shortHostile.map((s) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, "?"))) },
    {
      weight: 1,
      arbitrary: fc.tuple(fc.string({ maxLength: 8 }), badEncoding).map(([a, b]) => encodeURIComponent(a) + b)
    },
    {
      weight: 1,
      arbitrary: fc.oneof({ weight: 5, arbitrary: fc.integer({ min: 100, max: 2000 }) }, {
        weight: 1,
        arbitrary: fc.integer({ min: 2000, max: 20_000 })
      }).map((n) => "a".repeat(n))
    }
  )

const queryArbitrary = (target: RouteTarget): fc.Arbitrary<string> => {
  const pair = (key: fc.Arbitrary<string>) =>
    fc.tuple(key, shortHostile).map(([k, v]) =>
      `${encodeURIComponent(k.replace(/[\ud800-\udfff]/g, "?"))}=${
        encodeURIComponent(v.replace(/[\ud800-\udfff]/g, "?"))
      }`
    )
  const knownKeys = target.query === undefined
    ? fc.constant("q")
    : target.query.map((q) => Object.keys(q ?? {})[0] ?? "q")
  const plausible = target.query === undefined
    ? fc.constant("")
    : target.query.map((q) =>
      new URLSearchParams(
        Object.entries(q ?? {}).flatMap((
          [k, v]
        ) => (typeof v === "string" ? [[k, v]] : Array.isArray(v) ? v.map((x) => [k, String(x)]) : []))
      ).toString()
    )
  return fc.tuple(
    plausible,
    fc.array(
      fc.oneof(
        pair(knownKeys),
        pair(shortHostile),
        badEncoding.map((b) => `x=${b}`),
        badEncoding,
        fc.constantFrom("&", "==", "a=b=c", "&&&", "=x", "x")
      ),
      { maxLength: 4 }
    )
  ).map(([base, extra]) => [base, ...extra].filter((p) => p !== "").join("&"))
}

const pathArbitrary = (target: RouteTarget, knownIds: ReadonlyArray<string>): fc.Arbitrary<string> => {
  const names = [...target.path.matchAll(/:(\w+)/g)].map((m) => m[1]!)
  if (names.length === 0) return fc.constant(target.path)
  const plausible = (name: string) =>
    target.pathParams === undefined
      ? undefined
      : fc.oneof(
        { weight: 3, arbitrary: target.pathParams.map((p) => encodeURIComponent(String(p[name] ?? name))) },
        {
          weight: name === "id" && knownIds.length > 0 ? 4 : 0,
          arbitrary: fc.constantFrom(...(knownIds.length > 0 ? knownIds : ["x"]))
        }
      )
  return fc.tuple(...names.map((name) => segment(plausible(name)))).map((values) => {
    let path = target.path
    names.forEach((name, i) => {
      path = path.replace(`:${name}`, values[i]!)
    })
    return path
  })
}

const strayBody: fc.Arbitrary<string> = fc.oneof(
  fc.constant(""),
  shortHostile,
  fc.constantFrom(
    "{}",
    "[]",
    "a=b",
    '{"__proto__":{"x":1}}',
    "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]"
  )
)

const methods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]

/** One request aimed at `target`: mostly its own method, sometimes another (method confusion). */
export const requestArbitrary = (
  target: RouteTarget,
  apiKey: string,
  knownIds: ReadonlyArray<string>
): fc.Arbitrary<HostileRequest> =>
  fc.record({
    method: fc.oneof({ weight: 6, arbitrary: fc.constant(target.method) }, {
      weight: 1,
      arbitrary: fc.constantFrom(...methods)
    }),
    path: pathArbitrary(target, knownIds),
    trailing: fc.oneof({ weight: 12, arbitrary: fc.constant("") }, {
      weight: 1,
      arbitrary: fc.constantFrom("/", "//", "/x", "/%2e", ";x")
    }),
    query: fc.oneof({ weight: 1, arbitrary: fc.constant("") }, { weight: 2, arbitrary: queryArbitrary(target) }),
    headers: headersArbitrary(target, apiKey),
    contentType,
    // A route without a payload gets small stray bodies: generating full ones would only be thrown away.
    body: target.payload === undefined ? strayBody : bodyArbitrary(target.payload)
  }).map(({ body, contentType: type, headers, method, path, query, trailing }) => {
    const sendsBody = method !== "GET" && method !== "HEAD"
    const request: HostileRequest = {
      method,
      url: `${path}${trailing}${query === "" ? "" : `?${query}`}`,
      headers: [...headers, ...(sendsBody && type !== undefined ? [["content-type", type] as const] : [])],
      body: sendsBody ? body : undefined,
      jsonBody: sendsBody && isJsonType(type)
    }
    // fast-check prints counterexamples with this: a 200 kB body must not flood the report.
    return Object.defineProperty(request, fc.toStringMethod, { value: () => describeRequest(request) })
  })

const clip = (text: string, n = 300) => (text.length > n ? `${text.slice(0, n)}… (${text.length} chars)` : text)

/** One line per request, long parts cut: for failure reports. */
export const describeRequest = (request: HostileRequest) => {
  const body = request.body === undefined
    ? "(no body)"
    : typeof request.body === "string"
    ? JSON.stringify(clip(request.body))
    : `bytes ${clip(Buffer.from(request.body).toString("hex"), 200)}`
  return `${request.method} ${clip(request.url, 500)} headers=${
    JSON.stringify(request.headers.map(([n, v]) => [n, clip(v, 100)]))
  } body=${body}`
}
