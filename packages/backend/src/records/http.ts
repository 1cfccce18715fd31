import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { SvcApi } from "@svc/api"
import { Effect, Stream } from "effect"
import { SubjectErasure } from "../erasure/subject-erasure.js"
import { ConsentExports } from "./consent-exports.js"
import { SubjectExports } from "./subject-exports.js"

const contentTypes = { ndjson: "application/x-ndjson; charset=utf-8", csv: "text/csv; charset=utf-8" } as const

export const RecordsHttpLive = HttpApiBuilder.group(SvcApi, "records", (handlers) =>
  Effect.gen(function*() {
    const exports = yield* SubjectExports
    const erasure = yield* SubjectErasure
    const periods = yield* ConsentExports
    return handlers
      .handle("exportSubject", ({ path, urlParams }) => exports.bySubject(path.id, urlParams))
      .handle("exportByExternalId", ({ urlParams }) => exports.byExternalId(urlParams.externalId, urlParams))
      .handle("eraseSubject", ({ path }) => erasure.eraseSubject(path.id))
      .handle("eraseByExternalId", ({ urlParams }) => erasure.eraseByExternalId(urlParams.externalId))
      .handle("exportConsents", ({ urlParams }) =>
        Effect.map(periods.stream(urlParams), (text) => {
          const format = urlParams.format ?? "ndjson"
          // Headers are sent before the first page is read: a failure after that can only cut the
          // body short (the log says why), never turn into an error status.
          const body = text.pipe(
            Stream.tapErrorCause((cause) => Effect.logError("consent export stopped", cause)),
            Stream.encodeText
          )
          return HttpServerResponse.stream(body, {
            contentType: contentTypes[format],
            headers: { "content-disposition": `attachment; filename="consents.${format}"`, "cache-control": "no-store" }
          })
        }))
  }))
