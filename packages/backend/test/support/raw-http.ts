// Raw HTTP/1.1 for the hostile-input suite: what `fetch` refuses to send (bytes in the request
// target, broken chunked framing, conflicting lengths, bare LF, obs-fold, odd versions) written
// straight to a socket.
import fc from "fast-check"
import { connect } from "node:net"

export interface RawAnswer {
  /** The status of the first answer, or `undefined` when the server closed without one. */
  readonly status: number | undefined
  readonly text: string
  /** The socket was still open, with no complete answer, when the time ran out. */
  readonly hung: boolean
}

/** Writes `bytes`, half-closes, and reads until the server closes or `timeoutMs` passes. */
export const sendRaw = (url: string, bytes: Uint8Array, timeoutMs: number): Promise<RawAnswer> =>
  new Promise((resolve) => {
    const { hostname, port } = new URL(url)
    const socket = connect({ host: hostname, port: Number(port) })
    const chunks: Array<Buffer> = []
    let settled = false
    const finish = (hung: boolean) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      socket.destroy()
      const text = Buffer.concat(chunks).toString("latin1")
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1]
      // An answer that arrived in full counts, even if the server kept the connection open.
      const complete = status !== undefined && /\r\n\r\n/.test(text)
      resolve({ status: status === undefined ? undefined : Number(status), text, hung: hung && !complete })
    }
    const timer = setTimeout(() => finish(true), timeoutMs)
    socket.on("data", (chunk) => chunks.push(chunk))
    socket.on("error", () => finish(false))
    socket.on("close", () => finish(false))
    socket.on("connect", () => {
      socket.write(bytes)
      socket.end()
    })
  })

const bytes = (text: string) => Buffer.from(text, "latin1")

/** Mostly well-formed, so most requests reach svc; each part is odd in a share of cases. */
const mostly = <A>(good: fc.Arbitrary<A>, odd: fc.Arbitrary<A>) =>
  fc.oneof({ weight: 6, arbitrary: good }, { weight: 1, arbitrary: odd })

const rawTargets = fc.oneof(
  fc.tuple(fc.constantFrom("/subjects/", "/legal-documents/", "/"), fc.uint8Array({ minLength: 1, maxLength: 12 }))
    .map(([prefix, raw]) => prefix + Buffer.from(raw).toString("latin1"))
)

const targets = mostly(
  fc.constantFrom(
    "/status",
    "/subjects",
    "/subjects/sub_abcdefghijkl",
    "/init?country=DE",
    "/sessions",
    "/legal-documents/dpa/current",
    "/spec.json"
  ),
  fc.constantFrom(
    "*",
    "",
    "http://evil.example/status",
    "//status",
    "/%",
    "/status#x",
    "/subjects?%zz=%",
    "/init?country=%ff"
  )
).chain((t) => fc.oneof({ weight: 3, arbitrary: fc.constant(t) }, { weight: 1, arbitrary: rawTargets }))

const versions = mostly(
  fc.constantFrom("HTTP/1.1", "HTTP/1.0"),
  fc.constantFrom("HTTP/2.0", "HTTP/0.9", "HTTP/1.10", "HTTP/1", "", "HTTX/1.1")
)
const methods = mostly(
  fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"),
  fc.constantFrom("CONNECT", "TRACE", "PROPFIND", "get", "G T", "")
)

const headerLines = fc.array(
  fc.oneof(
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        "Content-Type: application/json",
        "Content-Type: application/json",
        "X-SVC-Version: 3.1.0",
        "Accept: */*",
        "Content-Length: 2"
      )
    },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        "Content-Type: application/json",
        "content-type: application/x-www-form-urlencoded",
        "Content-Type: multipart/form-data",
        "Content-Length: 5",
        "Content-Length: 0",
        "Content-Length: -1",
        "Content-Length: 99999999999999999999",
        "Content-Length: 5, 6",
        "Content-Length: abc",
        "Transfer-Encoding: chunked",
        "Transfer-Encoding: gzip, chunked",
        "Transfer-Encoding: identity",
        "Expect: 100-continue",
        "Expect: 999-nonsense",
        "Connection: upgrade",
        "Upgrade: websocket",
        "Host:",
        "Host: a, b",
        "X-Folded: a\r\n  b",
        "No-Colon-Header",
        ": empty-name",
        "Bad Name: x",
        "Authorization: Bearer \u00ff\u0080",
        "Origin: https://evil.example",
        "X-Request-Id: \u00e9\u00e9"
      )
    },
    {
      weight: 1,
      arbitrary: fc.tuple(
        fc.constantFrom("X-A", "Accept-Language", "Cookie", "User-Agent"),
        fc.uint8Array({ maxLength: 30 })
      )
        .map(([name, raw]) => `${name}: ${Buffer.from(raw).toString("latin1").replace(/[\r\n]/g, "")}`)
    }
  ),
  { maxLength: 5 }
)

const bodies = fc.oneof(
  fc.constantFrom(
    "",
    "{}",
    '{"a":1}',
    "5\r\nhello\r\n0\r\n\r\n",
    "zz\r\nhello\r\n0\r\n\r\n",
    "5\r\nhello\r\n",
    "5;ext=1\r\nhello\r\n0\r\n\r\n",
    "ffffffffffffffff\r\nx\r\n",
    "-1\r\n\r\n",
    "0\r\n\r\nGET /status HTTP/1.1\r\nHost: x\r\n\r\n",
    "[[[[[[[[[[",
    "GET /status HTTP/1.1\r\n\r\n"
  ),
  fc.uint8Array({ maxLength: 64 }).map((raw) => Buffer.from(raw).toString("latin1"))
)

/** One raw request: a request line, headers, and a body whose framing may contradict them. */
export const rawRequest: fc.Arbitrary<Uint8Array> = fc.record({
  method: methods,
  target: targets,
  version: versions,
  headers: headerLines,
  host: mostly(fc.constant(true), fc.constant(false)),
  eol: mostly(fc.constant("\r\n"), fc.constant("\n")),
  body: bodies
}).map(({ body, eol, headers, host, method, target, version }) =>
  bytes(
    `${method} ${target} ${version}${eol}${host ? `Host: 127.0.0.1${eol}` : ""}${
      headers.map((h) => h + eol).join("")
    }${eol}${body}`
  )
)
