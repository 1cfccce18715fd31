import type { Duplex } from "node:stream"

const answers: Record<string, readonly [status: number, reason: string, code: string, message: string]> = {
  HPE_HEADER_OVERFLOW: [431, "Request Header Fields Too Large", "HEADERS_TOO_LARGE",
    "The request line or headers exceed 16 KiB"],
  ERR_HTTP_REQUEST_TIMEOUT: [408, "Request Timeout", "REQUEST_TIMEOUT", "The request was not received in time"]
}

/**
 * Node's HTTP parser refuses what it cannot parse (oversized headers, broken framing) before any
 * svc code runs, and by default answers with an empty body. This answers in the spec's error shape
 * instead, and closes the connection as Node does.
 */
export const answerProtocolError = (error: Error & { code?: string }, socket: Duplex): void => {
  if (error.code === "ECONNRESET" || !socket.writable) {
    socket.destroy()
    return
  }
  const [status, reason, code, message] = answers[error.code ?? ""] ??
    [400, "Bad Request", "INVALID_REQUEST", "Malformed HTTP request"]
  const body = JSON.stringify({ message, cause: { code } })
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json\r\ncontent-length: ${
      Buffer.byteLength(body)
    }\r\nconnection: close\r\n\r\n${body}`
  )
}
