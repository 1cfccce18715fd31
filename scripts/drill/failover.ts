/**
 * `npm run drill -- failover`: two `svc serve` replicas on a pg_auto_failover formation's
 * multi-host URL (as `pg_autoctl show uri` prints it), saves under load from both, the primary
 * node SIGKILLed mid-load. Reports acknowledged saves lost (must be 0), the formation's failover
 * time (kill to the standby out of recovery), each replica's recovery (promotion to its first
 * acknowledged save after it; target ≤ 2 s), the answers during the outage, and the outbox: every
 * acknowledged save's event delivered, none delivered twice at the same time.
 * Exits 1 when an acknowledged save is lost, an event is lost or overlapped, or recovery > 2 s.
 */
import { spawn, type ChildProcess } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:http"
import { loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { startFormation } from "./pg-auto-failover.js"

const ROOT = fileURLToPath(new URL("../..", import.meta.url))
const SAVERS = Number(process.env.SVC_DRILL_SAVERS ?? 8)
const LOAD_BEFORE_KILL_MS = 5_000
const LOAD_AFTER_RECOVERY_MS = 5_000
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** A webhook receiver: every delivery by event id, and ids that arrived while the same id was still being answered. */
const startReceiver = async () => {
  const bySubject = new Map<string, number>()
  const inFlight = new Map<string, number>()
  const overlaps: Array<string> = []
  let deliveries = 0
  const server = createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (c: Buffer) => chunks.push(c))
    request.on("end", () => {
      const id = String(request.headers["webhook-id"] ?? "")
      const n = (inFlight.get(id) ?? 0) + 1
      inFlight.set(id, n)
      if (n > 1) overlaps.push(id)
      deliveries++
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
        type?: string
        data?: { principal?: { subjectId?: string } }
      }
      const subject = body.data?.principal?.subjectId
      if (body.type === "consent.recorded" && subject !== undefined)
        bySubject.set(subject, (bySubject.get(subject) ?? 0) + 1)
      // A short wait keeps deliveries in flight when the primary goes.
      setTimeout(() => {
        inFlight.set(id, (inFlight.get(id) ?? 1) - 1)
        response.writeHead(204).end()
      }, 20)
    })
  })
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
  const address = server.address()
  const port = typeof address === "object" && address !== null ? address.port : 0
  return {
    url: `http://127.0.0.1:${port}/hook`,
    bySubject,
    overlaps,
    deliveries: () => deliveries,
    close: () => server.close()
  }
}

/** What the replicas logged (warnings and database failures), for the report. */
const replicaLog: Array<string> = []

const startReplica = (config: string, port: number) =>
  new Promise<ChildProcess>((resolve, reject) => {
    const child = spawn(process.execPath, ["packages/server/bin/svc.js", "serve", "--config", config, "--port",
      String(port), "--host", "127.0.0.1"], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, NODE_ENV: "production" }
    })
    let output = ""
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      for (const line of chunk.toString().split("\n"))
        if (/level=(WARN|ERROR)/.test(line))
          replicaLog.push(`${port} ${line}`)
      if (/listening|http:\/\//i.test(output)) resolve(child)
    }
    child.stdout!.on("data", onData)
    child.stderr!.on("data", onData)
    child.once("exit", (code) => reject(new Error(`svc serve exited with ${code}:\n${output}`)))
  })

const main = async () => {
  const ports = { monitor: 56200 + Math.floor(Math.random() * 500), nodes: [0, 0] as [number, number] }
  ports.nodes = [ports.monitor + 1000, ports.monitor + 2000]
  console.log("starting a pg_auto_failover formation (monitor, primary, synchronous standby)...")
  const started = Date.now()
  const formation = await startFormation(ports)
  const dir = mkdtempSync(join(tmpdir(), "svc-drill-svc-"))
  const replicas: Array<ChildProcess> = []
  const receiver = await startReceiver()
  try {
    const primaryBefore = await formation.primary()
    console.log(
      `formation up in ${
        ((Date.now() - started) / 1000).toFixed(0)
      } s; primary ${primaryBefore?.name}, synchronous_standby_names = ${await formation.synchronousStandbyNames(
        primaryBefore!
      )}`
    )
    // pg_autoctl prints no user: the drill's servers have only `postgres`.
    const url = formation.uri.replace("postgres://", "postgres://postgres@")
    console.log(`svc's database.url: ${url}`)
    const config = join(dir, "svc.config.json")
    writeFileSync(
      config,
      JSON.stringify({
        database: { dialect: "postgres", url },
        apiKeys: [randomBytes(24).toString("hex")],
        webhooks: [{ id: "drill", url: receiver.url, secret: `whsec_${randomBytes(32).toString("base64")}` }],
        events: { delivery: { pollIntervalMs: 50, timeoutMs: 5_000, retry: { baseDelayMs: 100, maxDelayMs: 1_000 } } },
        observability: { requests: "none" }
      })
    )
    const replicaPorts = [ports.monitor + 3000, ports.monitor + 3001]
    for (const port of replicaPorts) replicas.push(await startReplica(config, port))
    const bases = replicaPorts.map((port) => `http://127.0.0.1:${port}`)

    // Saves: each saver keeps one act until it is acknowledged (the same body again after a 503, as a
    // client honouring Retry-After does, only sooner so the drill sees recovery to the 100 ms).
    const acknowledged: Array<{ subject: string; replica: number; at: number }> = []
    const answers = new Map<string, number>()
    const outage: Array<{ replica: number; at: number; status: number }> = []
    let running = true
    const saver = async (n: number) => {
      const replica = n % 2
      while (running) {
        const body = JSON.stringify({
          type: "cookie_banner",
          domain: "example.com",
          subjectId: `sub_${randomBytes(12).toString("base64url")}`,
          givenAt: Date.now(),
          preferences: { necessary: true, measurement: true, marketing: false, functionality: true, experience: false }
        })
        for (;;) {
          let status = 0
          let code = "connection refused"
          try {
            const response = await fetch(`${bases[replica]}/subjects`, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body
            })
            status = response.status
            const answer = await response.json() as { cause?: { code?: string } }
            code = status === 200 ? "" : `${answer.cause?.code} retry-after=${response.headers.get("retry-after")}`
          } catch {
            // the replica itself is unreachable: counted below
          }
          const at = Date.now()
          if (status === 200) {
            acknowledged.push({ subject: JSON.parse(body).subjectId, replica, at })
            break
          }
          const key = `${status} ${code}`
          answers.set(key, (answers.get(key) ?? 0) + 1)
          outage.push({ replica, at, status })
          if (!running) break
          await sleep(50)
        }
      }
    }
    const load = Array.from({ length: SAVERS }, (_, n) => saver(n))
    await sleep(LOAD_BEFORE_KILL_MS)
    const beforeKill = acknowledged.length
    const victim = (await formation.primary())!
    const standby = formation.nodes.find((node) => node !== victim)!
    const killedAt = Date.now()
    formation.killNode(victim)
    console.log(`SIGKILL to ${victim.name} (primary) after ${beforeKill} acknowledged saves`)
    // The formation's failover: the standby out of recovery.
    let promotedAt = 0
    const timeline: Array<string> = []
    let last = ""
    const note = async () => {
      const node = await formation.query(
        standby.port,
        "svc",
        "SELECT pg_is_in_recovery() AS r, current_setting('transaction_read_only') AS ro, current_setting('synchronous_standby_names') AS sync"
      ).catch(() => [])
      const states = await formation.states().catch(() => [])
      const now = `standby: recovery=${node[0]?.["r"]} read_only=${node[0]?.["ro"]} sync='${
        node[0]?.["sync"]
      }'; monitor: ${states.map((st) => `${st["nodename"]} ${st["reportedstate"]}->${st["goalstate"]}`).join(", ")}`
      if (now !== last) timeline.push(`+${((Date.now() - killedAt) / 1000).toFixed(1)} s ${now}`)
      last = now
      if (node[0]?.["r"] === false && outOfRecoveryAt === 0) outOfRecoveryAt = Date.now()
      // Promoted = the new primary takes writes: out of recovery and no longer held read-only
      // (pg_auto_failover keeps it read-only in stop_replication until the old primary must have
      // demoted itself, primary_demote_timeout).
      return node[0]?.["r"] === false && node[0]?.["ro"] === "off"
    }
    let outOfRecoveryAt = 0
    while (promotedAt === 0 && Date.now() - killedAt < 180_000) {
      if (await note()) promotedAt = Date.now()
      else await sleep(50)
    }
    const watching = (async () => {
      while (running && Date.now() - killedAt < 120_000) {
        await note()
        await sleep(100)
      }
    })()
    if (promotedAt === 0) throw new Error("the standby was not promoted within 180 s")
    // Each replica's recovery: its first save acknowledged after the promotion.
    const recovery: Array<number> = []
    for (let replica = 0; replica < 2; replica++) {
      while (
        !acknowledged.some((a) => a.replica === replica && a.at >= promotedAt) && Date.now() - promotedAt < 60_000
      ) {
        await sleep(20)
      }
      const first = acknowledged.find((a) => a.replica === replica && a.at >= promotedAt)
      recovery.push(first === undefined ? Number.POSITIVE_INFINITY : first.at - promotedAt)
    }
    await sleep(LOAD_AFTER_RECOVERY_MS)
    running = false
    await Promise.all([...load, watching])
    console.log(`formation timeline after the kill:\n  ${timeline.join("\n  ")}`)
    const logged = new Map<string, number>()
    for (const line of replicaLog) {
      const key = line.replace(/timestamp=\S+ /, "").replace(/fiber=#\d+ /, "").slice(0, 300)
      logged.set(key, (logged.get(key) ?? 0) + 1)
    }
    console.log(
      `replica log (warnings and errors, counted):\n  ${[...logged].map(([k, n]) => `${n} x ${k}`).join("\n  ")}`
    )

    // Lost: acknowledged saves not on the new primary.
    const stored = new Set(
      (await formation.query(standby.port, "svc", "SELECT subject_id FROM svc_consents")).map((r) =>
        String(r["subject_id"])
      )
    )
    const lost = acknowledged.filter((a) => !stored.has(a.subject))
    // Outbox: wait until every acknowledged save's event arrived (or 60 s).
    const deadline = Date.now() + 60_000
    while (acknowledged.some((a) => !receiver.bySubject.has(a.subject)) && Date.now() < deadline) await sleep(200)
    const undelivered = acknowledged.filter((a) => !receiver.bySubject.has(a.subject))
    const redelivered = [...receiver.bySubject.values()].filter((n) => n > 1).length
    const lastError = outage.filter((o) => o.at >= killedAt).reduce((max, o) => Math.max(max, o.at), killedAt)

    // When each replica switched, from its own log line (svc's detection, without a save's latency).
    const switched = replicaPorts.map((port) => {
      const line = replicaLog.find((l) => l.startsWith(`${port} `) && l.includes("now using"))
      const at = line === undefined ? Number.NaN : Date.parse(/timestamp=(\S+)/.exec(line)?.[1] ?? "")
      return at - promotedAt
    })
    const summary = {
      loadAverage: loadavg().map((n) => n.toFixed(1)).join(" "),
      savers: SAVERS,
      acknowledgedSaves: acknowledged.length,
      acknowledgedSavesLost: lost.length,
      failoverSeconds: {
        outOfRecovery: (outOfRecoveryAt - killedAt) / 1000,
        takingWrites: (promotedAt - killedAt) / 1000
      },
      replicaSwitchAfterPromotionMs: switched,
      replicaFirstAcknowledgedSaveAfterPromotionMs: recovery,
      lastRefusalAfterPromotionMs: Math.max(0, lastError - promotedAt),
      answersWhileOut: Object.fromEntries(answers),
      events: {
        delivered: receiver.deliveries(),
        acknowledgedSavesWithoutEvent: undelivered.length,
        deliveredTwiceAtOnce: receiver.overlaps.length,
        deliveredAgainLater: redelivered
      }
    }
    console.log(JSON.stringify(summary, null, 2))
    const ok = lost.length === 0 && undelivered.length === 0 && receiver.overlaps.length === 0 &&
      recovery.every((ms) => ms <= 2_000)
    console.log(ok ? "drill passed" : "drill FAILED")
    process.exitCode = ok ? 0 : 1
  } finally {
    for (const replica of replicas) replica.kill("SIGTERM")
    await sleep(1_000)
    receiver.close()
    await formation.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

await main()
