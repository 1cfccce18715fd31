import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { describeIssues, type InitHeaders, type InitQuery, InvalidRequest, SvcApi } from "@svc/api"
import { type LocationSource, SessionReportInput } from "@svc/schema"
import { Effect, ParseResult, Schema } from "effect"
import { precompressed, type StaticBody, staticResponse } from "../http/compression.js"
import { SvcConfig } from "../config/resolved.js"
import { storedIp } from "../access/ip-address.js"
import { GeoIp } from "../geo/geo-ip.js"
import { currentWideEvent } from "../http/wide-event.js"
import { type InitAnswer, PolicyInit } from "./init.js"
import { INIT_VARY, initClientVersion, readInitRequest } from "./init-request.js"
import { type ManifestDocument, ManifestResponses } from "./manifest-responses.js"
import { SessionReports } from "./sessions.js"

const JSON_TYPE = "application/json"
export const INIT_HEADERS = { "cache-control": "no-store", vary: INIT_VARY }

const decodeReport = Schema.decodeUnknown(SessionReportInput, { errors: "all" })

const encoder = new TextEncoder()
const served = new WeakMap<ManifestDocument, StaticBody>()

/** A manifest document's bytes, encoded once and compressed once per coding (it changes only on restart). */
const servedManifest = (document: ManifestDocument): StaticBody => {
  let body = served.get(document)
  if (body === undefined) {
    body = { bytes: precompressed(encoder.encode(document.body)), etag: document.etag, contentType: JSON_TYPE }
    served.set(document, body)
  }
  return body
}

/**
 * What an `/init` adds to its request's wide log event (and, through it, to the request metrics):
 * the resolution, the rule and how it matched, and the client's version. The pipeline's handler
 * and the fast path (instance/init-fast-path.ts) write the same fields.
 */
export const initEventFields = (
  answer: InitAnswer,
  query: typeof InitQuery.Type,
  headers: typeof InitHeaders.Type,
  locationSource: LocationSource
): Record<string, unknown> => {
  const fields: Record<string, unknown> = {
    "location.source": locationSource,
    "policy.resolution": answer.resolution.status
  }
  if (answer.resolution.status === "matched") {
    fields["policy.id"] = answer.resolution.pack.id
    fields["policy.matchedBy"] = answer.resolution.matchedBy
  } else if (answer.resolution.reason !== null) fields["policy.reason"] = answer.resolution.reason
  const clientVersion = initClientVersion(query, headers)
  if (clientVersion !== undefined) fields["client.version"] = clientVersion.slice(0, 64)
  return fields
}

/** The `policy` group: HTTP in, services, HTTP out. */
export const PolicyHttpLive = HttpApiBuilder.group(SvcApi, "policy", (handlers) =>
  Effect.gen(function*() {
    const config = yield* SvcConfig
    const documents = yield* ManifestResponses
    const init = yield* PolicyInit
    const sessions = yield* SessionReports
    const geo = yield* GeoIp

    return handlers
      .handle("manifest", ({ headers, urlParams }) =>
        Effect.sync(() =>
          staticResponse(servedManifest(documents.document(urlParams.language)), headers["if-none-match"], {
            "cache-control": documents.cacheControl
          })
        ))
      .handle("init", ({ headers, request, urlParams }) =>
        Effect.gen(function*() {
          const initRequest = readInitRequest(
            config,
            urlParams,
            headers,
            request.headers,
            request.remoteAddress._tag === "Some" ? request.remoteAddress.value : undefined,
            request.method === "HEAD",
            geo.lookup
          )
          const answer = yield* init.answer(initRequest)
          const event = yield* currentWideEvent
          if (event._tag === "Some") {
            Object.assign(event.value, initEventFields(answer, urlParams, headers, initRequest.location.source))
          }
          return HttpServerResponse.text(answer.body, { contentType: JSON_TYPE, headers: INIT_HEADERS })
        }))
      .handleRaw("reportSession", ({ headers, request }) =>
        Effect.gen(function*() {
          if (headers.origin !== undefined) {
            return yield* new InvalidRequest({
              message: "POST /sessions is server-to-server only: requests with an Origin header are refused"
            })
          }
          if (headers["x-svc-version"].trim() === "") {
            return yield* new InvalidRequest({ message: "POST /sessions needs an X-SVC-Version header" })
          }
          // Content type, presence and depth of the body are checked at the edge (http/request-body.ts).
          const text = yield* Effect.mapError(request.text, () =>
            new InvalidRequest({ message: "Could not read the request body" }))
          const body = yield* Effect.try({
            try: (): unknown =>
              JSON.parse(text),
            catch: () =>
              new InvalidRequest({ message: "Malformed request body: expected valid JSON" })
          })
          const report = yield* decodeReport(body).pipe(
            Effect.mapError((error) =>
              new InvalidRequest({ message: describeIssues(ParseResult.ArrayFormatter.formatErrorSync(error)) })
            )
          )
          yield* sessions.receive(report, {
            userAgent: request.headers["user-agent"] ?? null,
            // The host hands over the visitor's address; the ipAddress settings apply to it.
            ipAddress: storedIp(config.ipAddress, headers["x-svc-client-ip"])
          })
          return HttpServerResponse.empty({ status: 204 })
        }))
  }))
