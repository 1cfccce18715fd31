import { HttpServerResponse } from "@effect/platform"
import { ErrorStatus, type ErrorCode } from "@svc/schema"

/** The spec's error body for responses made outside the HttpApi encoder (edge failures). */
export const errorResponse = (code: ErrorCode, message: string, headers?: Record<string, string>) =>
  HttpServerResponse.unsafeJson(
    { message, cause: { code } },
    { status: ErrorStatus[code], ...(headers === undefined ? {} : { headers }) }
  )
