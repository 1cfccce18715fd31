import { HttpServerResponse } from "@effect/platform"
import { ErrorStatus, type ErrorCode } from "@svc/schema"

/** The spec's error body (`{ message, cause: { code } }`) and its status, as text. */
export const errorBody = (code: ErrorCode, message: string): { readonly status: number; readonly body: string } => ({
  status: ErrorStatus[code],
  body: JSON.stringify({ message, cause: { code } })
})

/** The spec's error body for responses made outside the HttpApi encoder (edge failures). */
export const errorResponse = (code: ErrorCode, message: string, headers?: Record<string, string>) => {
  const { body, status } = errorBody(code, message)
  return HttpServerResponse.text(body, {
    status,
    contentType: "application/json",
    ...(headers === undefined ? {} : { headers })
  })
}
