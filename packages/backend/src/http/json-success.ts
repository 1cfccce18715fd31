import { HttpApiSchema, HttpServerResponse } from "@effect/platform"
import type { Schema } from "effect"
import { compileEncoder } from "../codec/compiled.js"

/**
 * The success answer of a JSON endpoint, encoded with the compiled encoder of its success schema
 * (`codec/compiled.ts`) rather than the platform's interpreting one. What goes out is what the
 * platform would send: the same body, the schema's status, `application/json`. For the answers
 * whose size grows with what a subject holds (record lists); small answers gain nothing from it.
 */
export const jsonSuccess = <A, I>(
  schema: Schema.Schema<A, I, never>
): (value: A) => HttpServerResponse.HttpServerResponse => {
  const encode = compileEncoder(schema)
  const status = HttpApiSchema.getStatusSuccess(schema)
  const { contentType } = HttpApiSchema.getEncoding(schema.ast)
  return (value) => HttpServerResponse.unsafeJson(encode(value), { status, contentType })
}
