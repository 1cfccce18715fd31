import { HttpApiBuilder } from "@effect/platform"
import { SvcApi } from "@svc/api"
import { Effect } from "effect"
import { SubjectExports } from "./subject-exports.js"

export const RecordsHttpLive = HttpApiBuilder.group(SvcApi, "records", (handlers) =>
  Effect.gen(function*() {
    const exports = yield* SubjectExports
    return handlers
      .handle("exportSubject", ({ path }) => exports.bySubject(path.id))
      .handle("exportByExternalId", ({ urlParams }) => exports.byExternalId(urlParams.externalId))
  }))
