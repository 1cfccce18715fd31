import { HttpApiBuilder } from "@effect/platform"
import { SvcApi } from "@svc/api"
import { Effect } from "effect"

// TEMPORARY: groups whose behaviour is still being built answer 500 until their issue lands.
const pending = (route: string) => () => Effect.dieMessage(`${route} is not implemented yet`)

export const SubjectsHttpPending = HttpApiBuilder.group(SvcApi, "subjects", (h) =>
  h.handle("create", pending("POST /subjects")).handle("get", pending("GET /subjects/:id")).handle(
    "identify",
    pending("PATCH /subjects/:id")
  ).handle("list", pending("GET /subjects")))
export const ConsentsHttpPending = HttpApiBuilder.group(SvcApi, "consents", (h) => h.handle("check", pending("GET /consents/check")))
export const LegalDocumentsHttpPending = HttpApiBuilder.group(SvcApi, "legalDocuments", (h) =>
  h.handle("publish", pending("PUT /legal-documents/:type/current")))
