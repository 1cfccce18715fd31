import { HttpApiBuilder, HttpServerRequest } from "@effect/platform"
import { SvcApi } from "@svc/api"
import { Effect } from "effect"
import { ApiKeys } from "../access/api-keys.js"
import { SvcConfig } from "../config/resolved.js"
import { Consents } from "../consents/consents.js"
import { parseTypeList } from "../consents/choices.js"
import { GeoIp } from "../geo/geo-ip.js"
import { jsonSuccessOf } from "../http/json-success.js"
import { requestContextOf } from "../http/request-context.js"
import { IdentityLinks } from "../identity/identity-links.js"
import { Subjects } from "./subjects.js"

/**
 * The answers that grow with a subject's records: encoded by the compiled encoder, with the success
 * schemas the contract declares for `get` and `list` (read from `SvcApi`, never imported beside it).
 */
export const subjectResponses = {
  get: jsonSuccessOf(SvcApi, "subjects", "get"),
  list: jsonSuccessOf(SvcApi, "subjects", "list")
}

export const SubjectsHttpLive = HttpApiBuilder.group(SvcApi, "subjects", (handlers) =>
  Effect.gen(function*() {
    const config = yield* SvcConfig
    const keys = yield* ApiKeys
    const consents = yield* Consents
    const subjects = yield* Subjects
    const links = yield* IdentityLinks
    const geo = yield* GeoIp
    return handlers
      .handle("create", ({ payload }) =>
        Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
          consents.save(payload, requestContextOf(config, keys, request, geo.lookup))))
      .handle("get", ({ path, urlParams }) =>
        Effect.map(subjects.get(path.id, { types: parseTypeList(urlParams.type) }), subjectResponses.get))
      .handle("identify", ({ path, payload }) =>
        Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
          Effect.map(
            links.link(path.id, payload, requestContextOf(config, keys, request, geo.lookup)),
            (subject) => ({ subject })
          )))
      .handle("list", ({ urlParams }) =>
        Effect.map(subjects.list({ externalId: urlParams.externalId }), subjectResponses.list))
  }))
