import { jetstreamManager } from "@nats-io/jetstream"
import { connect } from "@nats-io/transport-node"
import type { SqlDialect } from "@svc/backend"
import { verifyWebhook } from "@svc/client"
import { type RunningServer, startServer } from "@svc/server"
import { randomBytes } from "node:crypto"
import { cookieSave, newSubjectId } from "./consent-saves.js"
import { freshDatabase } from "./dialects.js"
import { startTcpProxy } from "./tcp-proxy.js"
import { eventually, newWebhookSecret, startReceiver } from "./webhook-receiver.js"

export interface DrillOptions {
  readonly dialect: SqlDialect
  /** Consents saved, spread over `subjects` subjects and the two replicas. */
  readonly count: number
  readonly subjects: number
  /** Share of webhook requests the receiver answers 500, at random. */
  readonly failRate: number
  /** How long the receiver is unreachable, starting once a third of the saves are in; 0 for never. */
  readonly downMs: number
  /** Also publish to this NATS server (a stream is created for the drill and deleted after). */
  readonly natsUrl?: string | undefined
  readonly concurrency?: number
  readonly deadlineMs?: number
  /** `events.delivery` of both replicas; default a fast poll and retry schedule. */
  readonly delivery?: Record<string, unknown>
}

export interface DrillReport {
  readonly events: number
  readonly requests: number
  readonly deliveredEvents: number
  readonly undelivered: ReadonlyArray<string>
  readonly badSignatures: number
  readonly overlaps: ReadonlyArray<string>
  /** Events of a subject attempted before the subject's previous event was delivered. */
  readonly orderViolations: number
  readonly natsMissing: ReadonlyArray<string> | undefined
  /** Milliseconds from an event's commit (`occurredAt`) to its first 2xx, per event, sorted. */
  readonly latencies: ReadonlyArray<number>
  readonly saveMs: number
  readonly drainMs: number
}

/**
 * The "Done when" drill: two `svc serve` replicas (real servers) on one fresh database,
 * consents saved across both while a local receiver fails `failRate` of requests and is down for
 * `downMs`; then waits until every delivery is settled and reports what the receiver (and the
 * stream) saw. Used by the test (500 consents) and `npm run bench -- events` (5,000).
 */
export const runEventDrill = async (options: DrillOptions): Promise<DrillReport> => {
  const secret = newWebhookSecret()
  const receiver = await startReceiver({
    answer: () => Math.random() < options.failRate ? 500 : 204,
    verify: (body, headers) => verifyWebhook(body, headers as Record<string, string>, secret).ok
  })
  const receiverPort = Number(new URL(receiver.url).port)
  const proxy = await startTcpProxy({ host: "127.0.0.1", port: receiverPort })
  const db = await freshDatabase(options.dialect)
  const stream = `SVC_DRILL_${randomBytes(4).toString("hex").toUpperCase()}`
  const subject = `svc_drill.${stream.toLowerCase()}`
  const nc = options.natsUrl === undefined ? undefined : await connect({ servers: options.natsUrl, timeout: 2_000 })
  if (nc !== undefined) await (await jetstreamManager(nc)).streams.add({ name: stream, subjects: [subject] })
  const servers: Array<RunningServer> = []
  try {
    const config = {
      database: db.database,
      webhooks: [{ id: "receiver", url: `http://127.0.0.1:${proxy.port()}/hooks`, secret }],
      events: {
        ...(options.natsUrl === undefined ? {} : { nats: { servers: options.natsUrl, subject } }),
        delivery: options.delivery ??
          { pollIntervalMs: 25, timeoutMs: 2_000, leaseMs: 15_000, retry: { baseDelayMs: 20, maxDelayMs: 250 } }
      },
      observability: { requests: "none" as const }
    }
    for (let i = 0; i < 2; i++) servers.push(await startServer(config, { port: 0, host: "127.0.0.1" }))

    const subjects = Array.from({ length: options.subjects }, () => newSubjectId())
    const base = Date.now() - options.count * 10
    const started = Date.now()
    let next = 0
    let downDone: Promise<void> | undefined
    const worker = async () => {
      while (next < options.count) {
        const i = next++
        if (options.downMs > 0 && i === Math.floor(options.count / 3)) {
          downDone = proxy.stop().then(() => new Promise((resolve) => setTimeout(resolve, options.downMs))).then(() =>
            proxy.start()
          )
        }
        const body = cookieSave({ subjectId: subjects[i % subjects.length], givenAt: base + i * 10 })
        const response = await fetch(`${servers[i % 2]!.url}/subjects`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body)
        })
        if (response.status !== 200) throw new Error(`save ${i} answered ${response.status}: ${await response.text()}`)
        await response.body?.cancel()
      }
    }
    await Promise.all(Array.from({ length: options.concurrency ?? 16 }, worker))
    await downDone
    const saveMs = Date.now() - started

    const unsettled = async () =>
      Number((await db.query("SELECT COUNT(*) AS n FROM svc_event_deliveries WHERE status <> 'delivered'"))[0]!.n)
    await eventually(async () => (await unsettled()) === 0, options.deadlineMs ?? 120_000, "every delivery settled")
    const drainMs = Date.now() - started - saveMs

    const events = await db.query("SELECT id, occurred_at, payload FROM svc_events ORDER BY seq")
    const ok = receiver.received.filter((r) => r.status >= 200 && r.status < 300)
    const firstOk = new Map<string, number>()
    let badSignatures = 0
    for (const r of ok) {
      if (r.signatureOk !== true) badSignatures++
      else if (!firstOk.has(r.id)) firstOk.set(r.id, r.at)
    }
    const undelivered = events.map((e) => String(e.id)).filter((id) => !firstOk.has(id))
    const latencies = events
      .filter((e) => firstOk.has(String(e.id)))
      .map((e) => firstOk.get(String(e.id))! - Number(e.occurred_at))
      .sort((a, b) => a - b)

    // Per subject, in commit order: no attempt of an event before the previous one's first 2xx.
    const firstAttempt = new Map<string, number>()
    receiver.received.forEach((r, index) => {
      if (!firstAttempt.has(r.id)) firstAttempt.set(r.id, index)
    })
    const okIndex = new Map<string, number>()
    receiver.received.forEach((r, index) => {
      if (r.status >= 200 && r.status < 300 && !okIndex.has(r.id)) okIndex.set(r.id, index)
    })
    const bySubject = new Map<string, Array<string>>()
    for (const e of events) {
      const subjectId = JSON.parse(String(e.payload)).data?.principal?.subjectId as string | undefined
      if (subjectId === undefined) continue
      bySubject.set(subjectId, [...(bySubject.get(subjectId) ?? []), String(e.id)])
    }
    let orderViolations = 0
    for (const ids of bySubject.values()) {
      for (let k = 1; k < ids.length; k++) {
        if ((firstAttempt.get(ids[k]!) ?? Infinity) < (okIndex.get(ids[k - 1]!) ?? -1)) orderViolations++
      }
    }

    let natsMissing: Array<string> | undefined
    if (nc !== undefined) {
      const jsm = await jetstreamManager(nc)
      const info = await jsm.streams.info(stream)
      const seen = new Set<string>()
      for (let seq = info.state.first_seq; info.state.messages > 0 && seq <= info.state.last_seq; seq++) {
        const msg = await jsm.streams.getMessage(stream, { seq })
        if (msg !== null) seen.add(msg.header.get("Nats-Msg-Id"))
      }
      natsMissing = events.map((e) => String(e.id)).filter((id) => !seen.has(id))
    }
    return {
      events: events.length,
      requests: receiver.received.length,
      deliveredEvents: firstOk.size,
      undelivered,
      badSignatures,
      overlaps: [...receiver.overlaps],
      orderViolations,
      natsMissing,
      latencies,
      saveMs,
      drainMs
    }
  } finally {
    for (const server of servers) await server.close()
    if (nc !== undefined) {
      await (await jetstreamManager(nc)).streams.delete(stream).catch(() => undefined)
      await nc.close()
    }
    await proxy.stop()
    await receiver.close()
    await db.drop()
  }
}
