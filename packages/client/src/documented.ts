import { HttpApi } from "@effect/platform"
import { SvcApi } from "@svc/api"
import { Option } from "effect"
import * as SchemaAST from "effect/SchemaAST"

/*
 * The backend codes each endpoint documents, read from the contract (endpoint, group, API and
 * middleware errors alike), keyed by `METHOD /route`. A body carrying one of these codes is never
 * reported as undocumented, even when it does not decode (a STALE_POLICY without a reason).
 */

const collect = (ast: SchemaAST.AST, into: Set<string>): void => {
  if (ast._tag === "Union") {
    for (const member of ast.types) collect(member, into)
    return
  }
  const identifier = SchemaAST.getIdentifierAnnotation(ast)
  if (Option.isSome(identifier)) into.add(identifier.value)
}

const byRoute = new Map<string, ReadonlySet<string>>()
HttpApi.reflect(SvcApi, {
  onGroup: () => {},
  onEndpoint: ({ endpoint, errors }) => {
    const codes = new Set<string>()
    errors.forEach(({ ast }) => {
      if (Option.isSome(ast)) collect(ast.value, codes)
    })
    byRoute.set(`${endpoint.method} ${endpoint.path}`, codes)
  }
})

const none: ReadonlySet<string> = new Set()

/** The backend codes `METHOD route` documents (empty for a route the contract does not have). */
export const documentedCodes = (method: string, route: string): ReadonlySet<string> =>
  byRoute.get(`${method} ${route}`) ?? none
