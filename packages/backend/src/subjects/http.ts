import { HttpApiBuilder, HttpServerRequest } from "@effect/platform"
import { SvcApi } from "@svc/api"
import { Effect } from "effect"
import { ApiKeys } from "../access/api-keys.js"
import { SvcConfig } from "../config/resolved.js"
import { ConsentLedger } from "../consents/ledger.js"
import { requestContextOf } from "../http/request-context.js"
import { IdentityLinks } from "./identity-links.js"

export const SubjectsHttpLive = HttpApiBuilder.group(SvcApi, "subjects", (handlers) =>
  Effect.gen(function*() {
    const config = yield* SvcConfig
    const keys = yield* ApiKeys
    const ledger = yield* ConsentLedger
    const links = yield* IdentityLinks
    return handlers
      .handle("create", ({ payload }) =>
        Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
          ledger.save(payload, requestContextOf(config, keys, request))))
      .handle("get", ({ path, urlParams }) =>
        ledger.view(path.id, urlParams.type))
      .handle("identify", ({ path, payload }) =>
        Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
          Effect.map(
            links.link(path.id, payload, requestContextOf(config, keys, request)),
            (subject) => ({ subject })
          )))
      .handle("list", ({ urlParams }) =>
        ledger.listByExternalId(urlParams.externalId))
  }))
