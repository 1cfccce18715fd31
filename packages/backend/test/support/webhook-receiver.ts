import { randomBytes } from "node:crypto"
import { createServer, type IncomingHttpHeaders, type Server } from "node:http"
import type { AddressInfo } from "node:net"

/** A fresh Standard Webhooks secret: `whsec_` + base64 of 32 random bytes. */
export const newWebhookSecret = () => `whsec_${randomBytes(32).toString("base64")}`

export interface ReceivedWebhook {
  readonly id: string
  readonly headers: IncomingHttpHeaders
  readonly body: string
  /** What the receiver answered. */
  readonly status: number
  /** When the request arrived (epoch ms). */
  readonly at: number
  /** `behaviour.verify`'s verdict, taken on arrival (Standard Webhooks timestamps are only valid for minutes). */
  readonly signatureOk: boolean | undefined
}

export type ReceiverAnswer = number | "close" | {
  readonly status: number
  readonly headers?: Record<string, string>
  readonly delayMs?: number
}

export interface ReceiverBehaviour {
  /** Answer for one request; default 204. `"close"` destroys the socket without an answer. */
  answer?:
    | ((request: { readonly id: string; readonly count: number; readonly body: string }) => ReceiverAnswer)
    | undefined
  /** Milliseconds to wait before answering (to keep requests in flight). */
  delayMs?: number | undefined
  /** Checks each request's signature as it arrives. */
  verify?: ((body: string, headers: IncomingHttpHeaders) => boolean) | undefined
}

/**
 * A real HTTP webhook receiver on 127.0.0.1. Records every request, and whether a `webhook-id`
 * ever arrived while another request with the same id was still being answered.
 */
export const startReceiver = async (behaviour: ReceiverBehaviour = {}) => {
  const received: Array<ReceivedWebhook> = []
  const inFlight = new Map<string, number>()
  const overlaps: Array<string> = []
  let count = 0
  const server: Server = createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      const at = Date.now()
      const id = String(request.headers["webhook-id"] ?? "")
      const body = Buffer.concat(chunks).toString("utf8")
      const signatureOk = behaviour.verify?.(body, request.headers)
      const n = (inFlight.get(id) ?? 0) + 1
      inFlight.set(id, n)
      if (n > 1) overlaps.push(id)
      // Out of flight once answered or once the sender hung up (a timeout): svc may then retry.
      response.once("close", () => inFlight.set(id, (inFlight.get(id) ?? 1) - 1))
      count++
      const answer = behaviour.answer?.({ id, count, body }) ?? 204
      const finish = () => {
        if (answer === "close") {
          received.push({ id, headers: request.headers, body, status: 0, at, signatureOk })
          request.socket.destroy()
          return
        }
        const { headers, status } = typeof answer === "number" ? { status: answer, headers: {} } : answer
        // The sender gave up (timeout) before the answer: it never learns of it.
        received.push({ id, headers: request.headers, body, status: response.destroyed ? 0 : status, at, signatureOk })
        if (!response.destroyed) response.writeHead(status, headers ?? {}).end()
      }
      const delay = (typeof answer === "object" ? answer.delayMs : undefined) ?? behaviour.delayMs
      if (delay === undefined) finish()
      else setTimeout(finish, delay)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    overlaps,
    behaviour,
    /** Requests answered 2xx, by webhook id. */
    delivered: () => received.filter((r) => r.status >= 200 && r.status < 300),
    /** Requests that arrived and are not answered yet (held by a delay). */
    answering: () => count - received.length,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>

/** Polls `check` until it returns true (or fails the test after `timeoutMs`). */
export const eventually = async (check: () => boolean | Promise<boolean>, timeoutMs = 20_000, what = "condition") => {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (await check()) return
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  throw new Error(`timed out waiting for ${what}`)
}
