import { verifyWebhook } from "@svc/client"
import { type RunningServer, startServer } from "@svc/server"
import { describe, expect, it } from "vitest"
import { cookieSave } from "./support/consent-saves.js"
import { databaseServers, freshDatabase, serverDialects } from "./support/dialects.js"
import { skippedWithout } from "./support/server-suites.js"
import { startTcpProxy } from "./support/tcp-proxy.js"
import { eventually, newWebhookSecret, startReceiver } from "./support/webhook-receiver.js"

/*
 * The database restarting mid-delivery. svc reaches its database through a TCP proxy the test
 * stops and starts: every connection drops while deliveries are in flight and new ones are refused
 * until svc has found its database gone and the requests in flight are answered, as in a restart
 * (the shared database servers themselves are never touched). SQLite is a file in the process: it
 * has no server to restart.
 */
const API_KEY = "restart-key-0123456789abcdef-0123456"

if (serverDialects.length === 0) skippedWithout("the database restarting mid-delivery", databaseServers)

describe.each(serverDialects)("the database restarting mid-delivery [%s]", (dialect) => {
  it(
    "delivery resumes by itself: outcomes of the requests in flight are recorded once it is back, nothing is lost or sent twice",
    async () => {
      const db = await freshDatabase(dialect)
      const direct = new URL(db.database.url)
      const proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port) })
      const proxied = new URL(db.database.url)
      proxied.host = `127.0.0.1:${proxy.port()}`
      const secret = newWebhookSecret()
      // Answers after 300 ms, so deliveries are in flight when the database goes away.
      const receiver = await startReceiver({
        delayMs: 300,
        verify: (body, headers) => verifyWebhook(body, headers as Record<string, string>, secret).ok
      })
      let server: RunningServer | undefined
      try {
        server = await startServer({
          database: { ...db.database, url: proxied.toString() },
          apiKeys: [API_KEY],
          webhooks: [{ id: "crm", url: receiver.url, secret }],
          // The default lease (60 s) is longer than this test waits: no delivery may wait for one to expire.
          events: { delivery: { pollIntervalMs: 20, timeoutMs: 2_000, retry: { baseDelayMs: 50, maxDelayMs: 200 } } },
          observability: { requests: "none" }
        }, { port: 0, host: "127.0.0.1" })
        const base = server.url
        const save = () =>
          fetch(`${base}/subjects`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify(cookieSave())
          })
        const status = async () =>
          (await (await fetch(`${base}/status`)).json()).events as { pending: number; failed: number } | undefined
        for (let i = 0; i < 20; i++) expect((await save()).status).toBe(200)

        await eventually(() => receiver.received.length > 0, 10_000, "a delivery in flight")
        await proxy.stop()
        // The outage lasts until svc has found its database gone (/status leaves the counts out) and
        // the requests in flight are answered: their outcomes wait for the database to come back.
        await eventually(async () => (await status()) === undefined, 10_000, "svc finding its database gone")
        await eventually(() => receiver.answering() === 0, 10_000, "the requests in flight answered")
        expect(receiver.received.length).toBeGreaterThan(0)
        await proxy.start()

        // The server's own connections come back by themselves; saves after the restart are delivered too.
        await eventually(async () => (await save()).status === 200, 10_000, "a save after the restart")
        for (let i = 0; i < 4; i++) expect((await save()).status).toBe(200)
        await eventually(
          async () => (await status())?.pending === 0,
          20_000,
          "every delivery settled after the restart"
        )
        expect((await status())?.failed).toBe(0)

        const listed = await fetch(`${base}/events/deliveries?limit=100`, {
          headers: { authorization: `Bearer ${API_KEY}` }
        })
        const deliveries = (await listed.json()).deliveries as Array<
          { eventId: string; status: string; attempts: number }
        >
        expect(deliveries).toHaveLength(25)
        expect(deliveries.every((d) => d.status === "delivered" && d.attempts === 1)).toBe(true)
        // Each event reached the receiver exactly once, signed: the outcomes made during the outage
        // were recorded when the database came back, not sent again after a lease.
        const sent = receiver.received.map((r) => r.id).sort()
        expect(sent).toEqual(deliveries.map((d) => d.eventId).sort())
        expect(receiver.received.every((r) => r.status === 204 && r.signatureOk === true)).toBe(true)
        expect(receiver.overlaps).toEqual([])
      } finally {
        await server?.close()
        await receiver.close()
        await proxy.stop()
        await db.drop()
      }
    },
    60_000
  )
})
