import { HttpBody, HttpLayerRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, type Layer } from "effect"
import { createHash } from "node:crypto"
import { promisify } from "node:util"
import { pathOf } from "./routes.js"
import { brotliCompress, brotliCompressSync, constants, gzip, gzipSync } from "node:zlib"

/** A content coding svc answers with. */
export type Coding = "br" | "gzip" | "identity"

/** Bodies smaller than this go out as they are: the coding's overhead eats the gain. */
export const COMPRESSION_THRESHOLD = 1024

// Server preference when the client weighs several codings alike: smallest output first.
const PREFERENCE: ReadonlyArray<Coding> = ["br", "gzip", "identity"]

/**
 * The coding for an `Accept-Encoding` header (RFC 9110 §12.5.3): the acceptable coding with the
 * highest q-value; on a tie brotli, then gzip. `identity` is the answer without a header, when it
 * is asked for above the others, and when nothing listed is acceptable (svc never answers 406).
 */
export const negotiateCoding = (header: string | undefined): Coding => {
  if (header === undefined) return "identity"
  const weights: Partial<Record<Coding | "*", number>> = {}
  for (const part of header.split(",")) {
    const [rawName = "", ...params] = part.split(";")
    let name = rawName.trim().toLowerCase()
    if (name === "x-gzip") name = "gzip"
    if (name !== "br" && name !== "gzip" && name !== "identity" && name !== "*") continue
    let q = 1
    for (const param of params) {
      const match = /^\s*q\s*=\s*([0-9.]{1,5})\s*$/i.exec(param)
      if (match !== null) q = Number.isFinite(Number(match[1])) ? Math.min(1, Number(match[1])) : 0
    }
    weights[name] = Math.max(weights[name] ?? 0, q)
  }
  // `identity` is acceptable unless excluded, but only chosen over a listed coding when asked for.
  const weightOf = (coding: Coding): number =>
    weights[coding] ?? (coding === "identity" ? (weights["*"] === 0 ? 0 : Number.MIN_VALUE) : weights["*"] ?? 0)
  let best: Coding = "identity"
  let bestWeight = 0
  for (const coding of PREFERENCE) {
    const weight = weightOf(coding)
    if (weight > bestWeight) {
      best = coding
      bestWeight = weight
    }
  }
  return best
}

const COMPRESSIBLE =
  /^(text\/|application\/(json|javascript|ecmascript|xml|x-ndjson|[a-z0-9.+-]+\+(json|xml))|image\/svg\+xml)/i

/** Content types worth compressing (text formats; images and archives are compressed already). */
export const isCompressible = (contentType: string | undefined): boolean =>
  contentType !== undefined && COMPRESSIBLE.test(contentType)

/** The ETag of a coded variant: each coding is its own representation with its own tag. */
export const variantEtag = (etag: string, coding: Coding): string =>
  coding === "identity" ? etag : etag.replace(/"$/, `-${coding}"`)

/** Whether an `If-None-Match` header names `etag` (weak comparison, as RFC 9110 asks) or is `*`. */
export const matchesIfNoneMatch = (header: string | undefined, etag: string): boolean => {
  if (header === undefined) return false
  const opaque = etag.replace(/^W\//, "")
  return header.split(",").some((tag) => {
    const trimmed = tag.trim()
    return trimmed === "*" || trimmed.replace(/^W\//, "") === opaque
  })
}

// Per-request bodies: fast settings (this runs on the request's own time).
const dynamicGzip = { level: 6 }
const dynamicBrotli = (size: number) => ({
  params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: size }
})
// Bodies compressed once and kept: the densest settings that stay well under a second
// (brotli 11 on the 3.3 MB reference UI takes ~10 s; 9 takes ~0.5 s for 10% more bytes).
const staticGzip = { level: 9 }
const staticBrotli = (size: number) => ({
  params: {
    [constants.BROTLI_PARAM_QUALITY]: size <= 1024 * 1024 ? 11 : 9,
    [constants.BROTLI_PARAM_SIZE_HINT]: size
  }
})
const gzipAsync = promisify(gzip)
const brotliAsync = promisify(brotliCompress)
// Above this a body is compressed on the thread pool instead of the event loop.
const SYNC_LIMIT = 64 * 1024

const compressNow = (body: Uint8Array, coding: "br" | "gzip"): Uint8Array =>
  coding === "br" ? brotliCompressSync(body, dynamicBrotli(body.byteLength)) : gzipSync(body, dynamicGzip)

const compressLater = (body: Uint8Array, coding: "br" | "gzip", kept: boolean): Promise<Uint8Array> =>
  coding === "br"
    ? brotliAsync(body, kept ? staticBrotli(body.byteLength) : dynamicBrotli(body.byteLength))
    : gzipAsync(body, kept ? staticGzip : dynamicGzip)

/**
 * Bodies that do not change per request (bundles, `/manifest`, `/spec.json`, `/docs`): each coded
 * variant is made once, with the densest settings, and kept as long as the body is.
 */
const kept = new WeakMap<Uint8Array, Partial<Record<"br" | "gzip", Promise<Uint8Array>>>>()

/** Marks `body` as the same for every request, so its coded variants are made once and kept. */
export const precompressed = (body: Uint8Array): Uint8Array => {
  if (!kept.has(body)) kept.set(body, {})
  return body
}

/** A body served the same to everyone, with its strong ETag, ready for every coding. */
export interface StaticBody {
  readonly bytes: Uint8Array
  readonly etag: string
  readonly contentType: string
}

const encoder = new TextEncoder()

/** Encodes `content` once, tags it with a hash of its bytes and marks it for kept compression. */
export const staticBody = (content: string | Uint8Array, contentType: string): StaticBody => {
  const bytes = precompressed(typeof content === "string" ? encoder.encode(content) : content)
  return { bytes, etag: `"${createHash("sha256").update(bytes).digest("base64url").slice(0, 27)}"`, contentType }
}

/** 304 when `If-None-Match` names the body's (identity) ETag, else the body. The middleware codes it. */
export const staticResponse = (
  body: StaticBody,
  ifNoneMatch: string | undefined,
  headers: Record<string, string>
): HttpServerResponse.HttpServerResponse => {
  const all = { ...headers, etag: body.etag }
  return matchesIfNoneMatch(ifNoneMatch, body.etag)
    ? HttpServerResponse.empty({ status: 304, headers: all })
    : HttpServerResponse.uint8Array(body.bytes, { contentType: body.contentType, headers: all })
}

const withVary = (headers: Record<string, string>, name: string): Record<string, string> => {
  const vary = headers.vary
  if (vary === undefined || vary === "") return { ...headers, vary: name }
  if (vary.split(",").some((v) => v.trim().toLowerCase() === name.toLowerCase() || v.trim() === "*")) return headers
  return { ...headers, vary: `${vary}, ${name}` }
}

const varyOnCoding = (response: HttpServerResponse.HttpServerResponse) =>
  HttpServerResponse.setHeader(response, "vary", withVary({ ...response.headers }, "Accept-Encoding").vary!)

const coded = (
  response: HttpServerResponse.HttpServerResponse,
  body: Uint8Array,
  coding: "br" | "gzip",
  contentType: string | undefined
): HttpServerResponse.HttpServerResponse => {
  const headers: Record<string, string> = withVary({ ...response.headers }, "Accept-Encoding")
  headers["content-encoding"] = coding
  if (headers.etag !== undefined) headers.etag = variantEtag(headers.etag, coding)
  // setBody replaces Content-Length with the coded body's.
  return HttpServerResponse.setBody(
    HttpServerResponse.setHeaders(response, headers),
    HttpBody.uint8Array(body, contentType)
  )
}

const notModified = (
  response: HttpServerResponse.HttpServerResponse,
  etag: string
): HttpServerResponse.HttpServerResponse => {
  const headers: Record<string, string> = withVary({ ...response.headers }, "Accept-Encoding")
  delete headers["content-length"]
  delete headers["content-type"]
  headers.etag = etag
  return HttpServerResponse.empty({ status: 304, headers })
}

/**
 * The coded answer for a response: unchanged unless it is a compressible body of at least
 * `COMPRESSION_THRESHOLD` bytes; then `Vary: Accept-Encoding`, and for br/gzip the coded body
 * with its own ETag (or a 304 when `If-None-Match` names that coded variant).
 */
export const compressResponse = (
  response: HttpServerResponse.HttpServerResponse,
  coding: Coding,
  ifNoneMatch: string | undefined
): Effect.Effect<HttpServerResponse.HttpServerResponse> => {
  // A handler's own 304 (its identity tag, or `*`) carries the Vary its 200 would.
  if (response.status === 304) return Effect.succeed(varyOnCoding(response))
  const body = response.body
  if (body._tag !== "Uint8Array" || body.body.byteLength < COMPRESSION_THRESHOLD) return Effect.succeed(response)
  if (response.status < 200 || response.status === 204 || response.status === 206) return Effect.succeed(response)
  const headers = response.headers
  if (headers["content-encoding"] !== undefined || /\bno-transform\b/i.test(headers["cache-control"] ?? "")) {
    return Effect.succeed(response)
  }
  if (!isCompressible(body.contentType ?? headers["content-type"])) return Effect.succeed(response)
  if (coding === "identity") return Effect.succeed(varyOnCoding(response))
  const etag = headers.etag
  if (etag !== undefined && matchesIfNoneMatch(ifNoneMatch, variantEtag(etag, coding))) {
    return Effect.succeed(notModified(response, variantEtag(etag, coding)))
  }
  const bytes = body.body
  const variants = kept.get(bytes)
  if (variants !== undefined) {
    const variant = variants[coding] ??= compressLater(bytes, coding, true)
    return Effect.map(Effect.promise(() => variant), (out) => coded(response, out, coding, body.contentType))
  }
  if (bytes.byteLength > SYNC_LIMIT) {
    return Effect.map(
      Effect.promise(() => compressLater(bytes, coding, false)),
      (out) => coded(response, out, coding, body.contentType)
    )
  }
  return Effect.succeed(coded(response, compressNow(bytes, coding), coding, body.contentType))
}

/**
 * Compression for every svc route: answers are coded per `Accept-Encoding` (see
 * `compressResponse`). `GET /init` is left alone: see docs/adr/0018-response-compression.md.
 */
const compression = <E, R>(app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    if (pathOf(request.url) === "/init") return app
    const coding = negotiateCoding(request.headers["accept-encoding"])
    const ifNoneMatch = request.headers["if-none-match"]
    return Effect.flatMap(app, (response) => compressResponse(response, coding, ifNoneMatch))
  })

/** Provide to every layer that registers svc routes (beside the edge). */
export const CompressionLive: Layer.Layer<never> = HttpLayerRouter.middleware(compression).layer
