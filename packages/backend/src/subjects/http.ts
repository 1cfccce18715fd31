import { HttpApiBuilder, HttpServerRequest } from "@effect/platform"
import { SvcApi } from "@svc/api"
import { Effect, Option } from "effect"
import { ConsentLedger } from "../consents/ledger.js"
import { IdentityLinks } from "./identity-links.js"

export const SubjectsHttpLive = HttpApiBuilder.group(SvcApi, "subjects", (handlers) =>
  Effect.gen(function*() {
    const ledger = yield* ConsentLedger
    const links = yield* IdentityLinks
    return handlers
      .handle("create", ({ payload }) =>
        Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
          ledger.save(payload, {
            authorization: request.headers.authorization,
            headers: request.headers,
            remoteAddress: Option.getOrUndefined(request.remoteAddress)
          })))
      .handle("get", ({ path, urlParams }) => ledger.view(path.id, urlParams.type))
      .handle("identify", ({ path, payload }) =>
        Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
          Effect.map(links.link(path.id, payload, request.headers.authorization), (subject) => ({ subject }))))
      .handle("list", ({ urlParams }) => ledger.listByExternalId(urlParams.externalId))
  }))
