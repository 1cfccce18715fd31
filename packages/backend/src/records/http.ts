import { HttpApiBuilder } from "@effect/platform"
import { SvcApi } from "@svc/api"
import { Effect } from "effect"
import { SubjectErasure } from "../erasure/subject-erasure.js"
import { SubjectExports } from "./subject-exports.js"

export const RecordsHttpLive = HttpApiBuilder.group(SvcApi, "records", (handlers) =>
  Effect.gen(function*() {
    const exports = yield* SubjectExports
    const erasure = yield* SubjectErasure
    return handlers
      .handle("exportSubject", ({ path }) => exports.bySubject(path.id))
      .handle("exportByExternalId", ({ urlParams }) => exports.byExternalId(urlParams.externalId))
      .handle("eraseSubject", ({ path }) => erasure.eraseSubject(path.id))
      .handle("eraseByExternalId", ({ urlParams }) => erasure.eraseByExternalId(urlParams.externalId))
  }))
