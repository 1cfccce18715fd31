import {
  type DatabaseError,
  IdentityConflict,
  IdentityTokenInvalid,
  NotFound,
  Unauthorized
} from "@svc/api"
import type { LinkIdentityRequest, SubjectId } from "@svc/schema"
import { SubjectLinkedEvent } from "@svc/schema"
import { SqlClient } from "@effect/sql"
import { Clock, Effect, Option } from "effect"
import { SvcConfig } from "../config/resolved.js"
import { orDatabaseError } from "../database/database-error.js"
import { EventOutbox } from "../events/outbox.js"
import type { RequestContext } from "../access/request-context.js"
import { verifyIdentityToken } from "./tokens.js"
import { type IdentityLink, SubjectsRepo } from "./subjects-repository.js"

/** Provider stored when a link names none. */
export const DEFAULT_IDENTITY_PROVIDER = "external"

/** How a request proved (or failed to prove) the identity it names. */
export type IdentityProof = "api-key" | "token" | "none" | "bad-token"

/**
 * A subject's identity link as `Subjects.link` answers it: the subject, the user it is linked to,
 * the identity provider, and whether the link is verified.
 *
 * @example
 * ```ts
 * import { type LinkedSubject, Subjects } from "@svc/backend"
 * import { Effect } from "effect"
 *
 * const describe = (link: LinkedSubject) =>
 *   `${link.id} is ${link.identityProvider}:${link.externalId}${link.verified ? " (verified)" : ""}`
 * // After sign-in: the browser's subject belongs to the account from now on.
 * export const onSignIn = (subjectId: string, userId: string) =>
 *   Effect.flatMap(Subjects, (subjects) => subjects.link(subjectId, { externalId: userId, identityProvider: "auth0" }))
 *     .pipe(Effect.tap((link) => Effect.log(describe(link))))
 * ```
 */
export interface LinkedSubject {
  readonly id: SubjectId
  readonly externalId: string
  readonly identityProvider: string
  readonly verified: boolean
}

/**
 * Links between subjects and external identities (spec "States and transitions"). A link is
 * verified by an API key, or by an HS256 identity token whose `sub` is the external id and whose
 * optional `idp` is the link's provider.
 */
export class IdentityLinks extends Effect.Service<IdentityLinks>()("@svc/backend/IdentityLinks", {
  dependencies: [SubjectsRepo.Default, EventOutbox.Default],
  effect: Effect.gen(function*() {
    const config = yield* SvcConfig
    const repo = yield* SubjectsRepo
    const sql = yield* SqlClient.SqlClient
    const outbox = yield* EventOutbox
    const tenantId = config.tenantId ?? ""
    const tokenSettings = config.identityToken

    /** Judges the proof a request carries for `externalId` under `provider`. */
    const prove = (
      request: { readonly apiKey: RequestContext["apiKey"]; readonly identityToken: string | undefined },
      externalId: string,
      provider: string
    ): Effect.Effect<IdentityProof> => {
      if (request.apiKey === "valid") return Effect.succeed("api-key")
      const token = request.identityToken
      if (token === undefined) return Effect.succeed("none")
      if (tokenSettings === undefined) return Effect.succeed("bad-token")
      return Effect.promise(() => verifyIdentityToken(tokenSettings, token)).pipe(
        Effect.map((claims) =>
          claims !== undefined && claims.externalId === externalId &&
            (claims.identityProvider === undefined || claims.identityProvider === provider)
            ? "token"
            : "bad-token"
        )
      )
    }

    const notFound = new NotFound({ message: "No such subject" })

    /** `PATCH /subjects/:id`. */
    const link = (
      id: SubjectId,
      body: LinkIdentityRequest,
      context: RequestContext
    ): Effect.Effect<
      LinkedSubject,
      NotFound | IdentityTokenInvalid | IdentityConflict | Unauthorized | DatabaseError
    > =>
      Effect.gen(function*() {
        // A key that is sent but wrong is a misconfigured server, not an anonymous visitor: say so
        // rather than quietly making an unverified link the caller believes verified.
        if (context.apiKey === "invalid") {
          return yield* Effect.fail(new Unauthorized({ message: "The API key is not valid for this backend" }))
        }
        const provider = body.identityProvider ?? DEFAULT_IDENTITY_PROVIDER
        const proof = yield* prove(
          { apiKey: context.apiKey, identityToken: body.identityToken },
          body.externalId,
          provider
        )
        if (proof === "bad-token") {
          return yield* Effect.fail(
            new IdentityTokenInvalid({
              message: "The identity token does not verify, has expired, or names another external id or provider"
            })
          )
        }
        const wanted: IdentityLink = {
          externalId: body.externalId,
          identityProvider: provider,
          verified: proof !== "none"
        }
        // Two rounds: a lost compare-and-set means another PATCH changed the link; judge again.
        for (let attempt = 0; attempt < 2; attempt++) {
          const found = yield* repo.findById({ tenantId, id })
          if (Option.isNone(found)) return yield* Effect.fail(notFound)
          const row = found.value
          const current = {
            externalId: row.external_id,
            identityProvider: row.identity_provider,
            verified: Number(row.verified) === 1
          }
          const sameIdentity = current.externalId === wanted.externalId && current.identityProvider === provider
          if (sameIdentity && (current.verified || !wanted.verified)) {
            // Linking the same user again changes nothing (nor does an unverified repeat of a verified link).
            return { id, externalId: wanted.externalId, identityProvider: provider, verified: current.verified }
          }
          if (current.verified && !sameIdentity && proof !== "api-key") {
            return yield* Effect.fail(
              new IdentityConflict({
                message: proof === "token"
                  ? "This subject is verifiably linked to another identity; only an API key can relink it"
                  : "This subject is verifiably linked to another identity"
              })
            )
          }
          const now = yield* Clock.currentTimeMillis
          // The link and its `subject.linked` event land together or not at all.
          const changed = yield* sql.withTransaction(
            Effect.gen(function*() {
              const set = yield* repo.setLink({ tenantId, id, expected: current, link: wanted, now })
              if (set)
                yield* outbox.append({
                  schema: SubjectLinkedEvent,
                  type: "subject.linked",
                  orderKey: id,
                  data: { subjectId: id, ...wanted }
                })
              return set
            })
          )
          if (changed) return { id, ...wanted }
        }
        return yield* Effect.fail(new IdentityConflict({ message: "The subject's link changed concurrently; retry" }))
      }).pipe(orDatabaseError)

    return { prove, link } as const
  })
}) {}
