import { jetstreamManager } from "@nats-io/jetstream"
import { connect, type NatsConnection } from "@nats-io/transport-node"
import { randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { cookieSave, save } from "./support/consent-saves.js"
import { dialects } from "./support/dialects.js"
import { optionalServers } from "./support/optional-servers.js"
import { describeWith } from "./support/server-suites.js"
import { useServer } from "./support/server.js"
import { useTcpProxy } from "./support/tcp-proxy-suite.js"
import { eventually } from "./support/webhook-receiver.js"

/*
 * The NATS JetStream sink against a real server (SVC_TEST_NATS_URL; CI sets it, and the suite
 * fails, never skips, when it is set and unreachable). svc connects through a TCP proxy the test
 * stops and starts, so NATS looks down and back to it.
 */

/** Fast delivery rounds, so the tests see outcomes within a second. */
const delivery = { pollIntervalMs: 20, timeoutMs: 500, leaseMs: 5_000, retry: { baseDelayMs: 50, maxDelayMs: 200 } }

/**
 * A fresh JetStream stream for the enclosing `describe` (made after `before`, deleted after), and
 * the test's own connection to NATS for reading it.
 */
const useStream = (natsUrl: string, before: () => Promise<void> = async () => {}) => {
  const name = `SVC_T_${randomBytes(4).toString("hex").toUpperCase()}`
  const subject = `svc_t.${name.toLowerCase()}.events`
  let nc: NatsConnection | undefined
  beforeAll(async () => {
    await before()
    nc = await connect({ servers: natsUrl, timeout: 2_000 })
    await (await jetstreamManager(nc)).streams.add({ name, subjects: [subject] })
  })
  afterAll(async () => {
    if (nc === undefined) return
    await (await jetstreamManager(nc)).streams.delete(name).catch(() => undefined)
    await nc.close()
  })
  return { name, subject, connection: () => nc! }
}

describeWith(optionalServers.nats, "events to NATS JetStream", (natsUrl) => {
  const target = new URL(natsUrl.replace(/^nats:/, "http:"))
  const upstream = { host: target.hostname, port: Number(target.port || 4222) }

  describe.each(dialects)("[%s]", (dialect) => {
    const proxy = useTcpProxy(upstream)
    const { connection, name, subject } = useStream(natsUrl)
    const server = useServer(dialect, () => ({ events: { nats: { servers: proxy.url(), subject }, delivery } }))
    const streamIds = async () => {
      const jsm = await jetstreamManager(connection())
      const info = await jsm.streams.info(name)
      const ids: Array<string> = []
      for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
        const msg = await jsm.streams.getMessage(name, { seq })
        if (msg !== null) {
          const event = JSON.parse(msg.string())
          expect(msg.header.get("Nats-Msg-Id")).toBe(event.id)
          ids.push(event.id)
        }
      }
      return ids
    }
    const eventIds = async () =>
      (await server.db().query("SELECT id FROM svc_events ORDER BY seq")).map((r) => String(r.id))
    const pendingCount = async () =>
      Number((await server.db().query("SELECT COUNT(*) AS n FROM svc_event_deliveries WHERE status = 'pending'"))[0]!.n)

    it("publishes every event to the stream, marked delivered once the stream acknowledged it", async () => {
      for (let i = 0; i < 20; i++) expect((await save(server, cookieSave())).status).toBe(200)
      await eventually(async () => (await pendingCount()) === 0, 20_000, "all acknowledged")
      const stored = await eventIds()
      expect(stored).toHaveLength(20)
      expect(new Set(await streamIds())).toEqual(new Set(stored))
    })

    it("while NATS is down events wait in the outbox; they flow when it is back", async () => {
      await proxy.stop()
      try {
        for (let i = 0; i < 10; i++) expect((await save(server, cookieSave())).status).toBe(200)
        await eventually(
          async () => {
            const rows = await server.db().query(
              "SELECT last_error FROM svc_event_deliveries WHERE status = 'pending' AND attempts > 0"
            )
            return rows.length > 0 && rows.every((r) => String(r.last_error).startsWith("NATS"))
          },
          20_000,
          "failed attempts recorded"
        )
        expect(await pendingCount()).toBe(10)
      } finally {
        await proxy.start()
      }
      await eventually(async () => (await pendingCount()) === 0, 30_000, "delivered after NATS is back")
      const stored = await eventIds()
      expect(stored).toHaveLength(30)
      // At least once: each event is in the stream (the stream's duplicate window drops repeats).
      expect(new Set(await streamIds())).toEqual(new Set(stored))
    })
  })

  /*
   * NATS unreachable when svc starts (its proxy is closed before the server starts): svc serves,
   * saves succeed and their events wait in the outbox; once NATS is reachable they flow.
   */
  describe.each(dialects)(
    "unreachable at start [%s]",
    (dialect) => {
      // The proxy is closed before the server starts: svc starts with NATS unreachable.
      const late = useTcpProxy(upstream)
      const { connection, name, subject } = useStream(natsUrl, () => late.stop())
      const server = useServer(dialect, () => ({ events: { nats: { servers: late.url(), subject }, delivery } }))

      it("serves and keeps the events in the outbox until NATS is reachable, then publishes them", async () => {
        const bodies = Array.from({ length: 5 }, () => cookieSave())
        for (const body of bodies) expect((await save(server, body)).status).toBe(200)
        await eventually(
          async () => {
            const rows = await server.db().query(
              "SELECT attempts, last_error FROM svc_event_deliveries WHERE status = 'pending'"
            )
            return rows.length === 5 &&
              rows.every((r) => Number(r.attempts) > 0 && String(r.last_error).startsWith("NATS"))
          },
          20_000,
          "failed attempts recorded while NATS is unreachable"
        )
        await late.start()
        await eventually(
          async () => {
            const [row] = await server.db().query(
              "SELECT COUNT(*) AS n FROM svc_event_deliveries WHERE status = 'pending'"
            )
            return Number(row!.n) === 0
          },
          30_000,
          "published once NATS is reachable"
        )
        const stored = (await server.db().query("SELECT id FROM svc_events")).map((r) => String(r.id))
        const info = await (await jetstreamManager(connection())).streams.info(name)
        const published: Array<string> = []
        for (let seq = info.state.first_seq; info.state.messages > 0 && seq <= info.state.last_seq; seq++) {
          const msg = await (await jetstreamManager(connection())).streams.getMessage(name, { seq })
          if (msg !== null) published.push(msg.header.get("Nats-Msg-Id"))
        }
        expect(new Set(published)).toEqual(new Set(stored))
        expect(stored).toHaveLength(5)
      }, 60_000)
    }
  )
})
