import { HttpApiBuilder, HttpServerRequest } from "@effect/platform"
import { SvcApi } from "@svc/api"
import { Effect } from "effect"
import { ApiKeys } from "../access/api-keys.js"
import { SvcConfig } from "../config/resolved.js"
import { ConsentLedger } from "../consents/ledger.js"
import { GeoIp } from "../geo/geo-ip.js"
import { jsonSuccessOf } from "../http/json-success.js"
import { requestContextOf } from "../http/request-context.js"
import { IdentityLinks } from "./identity-links.js"

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
    const ledger = yield* ConsentLedger
    const links = yield* IdentityLinks
    const geo = yield* GeoIp
    return handlers
      .handle("create", ({ payload }) =>
        Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
          ledger.save(payload, requestContextOf(config, keys, request, geo.lookup))))
      .handle("get", ({ path, urlParams }) =>
        Effect.map(ledger.view(path.id, urlParams.type), subjectResponses.get))
      .handle("identify", ({ path, payload }) =>
        Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
          Effect.map(
            links.link(path.id, payload, requestContextOf(config, keys, request, geo.lookup)),
            (subject) => ({ subject })
          )))
      .handle("list", ({ urlParams }) =>
        Effect.map(ledger.listByExternalId(urlParams.externalId), subjectResponses.list))
  }))
