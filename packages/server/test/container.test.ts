// The container image, built from the Dockerfile and run with the README's commands ("Run with
// Docker", "Run with compose"). Needs SVC_TEST_DOCKER (any value) and, as root, Debian's docker.io
// (/usr/bin/docker, dockerd running), docker-compose and debootstrap: `.ci/run` installs them.
// Set, the suite fails (never skips) when docker is not usable. It uses the README's names: image
// `svc`, container `svc`, volume `svc-data` (removed first and last); don't set it where those are yours.
import { spawn } from "node:child_process"
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync } from "node:fs"
import { connect } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, expect, it } from "vitest"
import { walkthroughSteps } from "../../../examples/test/readme-blocks.js"
import { cookieSave, newSubjectId } from "../../backend/test/support/consent-saves.js"
import { optionalServers } from "../../backend/test/support/optional-servers.js"
import { describeWith } from "../../backend/test/support/server-suites.js"
import { freePort } from "./support/svc-process.js"

const DOCKER = "/usr/bin/docker"
const COMPOSE = "/usr/bin/docker-compose"
const repo = fileURLToPath(new URL("../../../", import.meta.url))
/** The images `scripts/container/base.sh` makes: CI's node:20-bookworm-slim and postgres:15. */
const BASE_IMAGE = "svc-test/node:20"
const POSTGRES_IMAGE = "svc-test/postgres:15"
const MINUTE = 60_000

/** The commands of the first `sh` block under `## heading` in the README, continuation lines joined. */
const readmeCommands = (heading: string): Array<string> => {
  const [block] = walkthroughSteps(join(repo, "README.md"), heading)
  if (block === undefined) throw new Error(`README.md: no sh block under "## ${heading}"`)
  return block.code.replace(/\\\n\s*/g, " ").split("\n").map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"))
}

/** The README command that starts with `prefix`. */
const command = (commands: ReadonlyArray<string>, prefix: string): string => {
  const found = commands.find((line) => line.startsWith(prefix))
  if (found === undefined) throw new Error(`README.md: no command starting with "${prefix}"`)
  return found
}

interface Result {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** `docker` in a README command is Debian's client (a newer one without buildx cannot build with BuildKit). */
const shims = mkdtempSync(join(tmpdir(), "svc-docker-shims-"))
symlinkSync(DOCKER, join(shims, "docker"))
symlinkSync(COMPOSE, join(shims, "docker-compose"))

/** Runs a shell command line (a README command), resolving with its output; fails on a non-zero exit. */
const sh = (line: string, cwd: string, env: Record<string, string> = {}, timeoutMs = 2 * MINUTE) =>
  new Promise<Result>((resolve, reject) => {
    const child = spawn("bash", ["-euo", "pipefail", "-c", line], {
      cwd,
      env: { ...process.env, ...env, PATH: `${shims}:${process.env.PATH}` },
      timeout: timeoutMs
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d) => (stdout += d))
    child.stderr.on("data", (d) => (stderr += d))
    child.on("error", reject)
    child.on(
      "exit",
      (code) =>
        code === 0
          ? resolve({ code, stdout, stderr })
          : reject(new Error(`${line}: exit ${code}\n${stdout}\n${stderr}`))
    )
  })

const docker = (args: ReadonlyArray<string>) => sh([DOCKER, ...args].map((a) => `'${a}'`).join(" "), repo)

/** Polls `check` once a second until it returns true; fails after `timeoutMs` with `what`. */
const until = async (what: string, check: () => Promise<boolean>, timeoutMs = 2 * MINUTE) => {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return
    await new Promise((resolve) => setTimeout(resolve, 1000))
  }
  throw new Error(`timed out waiting for ${what}`)
}

/** The value of `name` in an env file a README command wrote. */
const envValue = (file: string, name: string) => {
  const line = readFileSync(file, "utf8").split("\n").find((l) => l.startsWith(`${name}=`))
  if (line === undefined) throw new Error(`${file} has no ${name}`)
  return line.slice(name.length + 1)
}

const json = async (response: Response) => ({ status: response.status, body: await response.json() as any })

/** Saves a cookie-banner consent for a subject linked (with the API key) to `externalId`. */
const save = (base: string, key: string, subjectId: string, externalId: string, token?: string) =>
  fetch(`${base}/subjects`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    body: JSON.stringify(cookieSave({
      subjectId,
      externalSubjectId: externalId,
      ...(token === undefined ? {} : { policySnapshotToken: token })
    }))
  }).then(json)

/** The subject as `GET /subjects/:id` answers it, and the subject ids linked to `externalId`. */
const readBack = async (base: string, key: string, subjectId: string, externalId: string) => {
  const subject = await fetch(`${base}/subjects/${subjectId}`).then(json)
  const linked = await fetch(`${base}/subjects?externalId=${externalId}`, {
    headers: { authorization: `Bearer ${key}` }
  })
    .then(json)
  return { subject, linked: JSON.stringify(linked.body).includes(subjectId) && linked.status === 200 }
}

/**
 * A save whose request is in flight: headers and half the body sent; `finish` sends the rest and
 * resolves with the raw HTTP answer.
 */
const inFlightSave = async (port: number, key: string, subjectId: string) => {
  const body = JSON.stringify(cookieSave({ subjectId }))
  const socket = connect(port, "127.0.0.1")
  let answer = ""
  socket.on("data", (d) => (answer += d))
  const closed = new Promise<string>((resolve) => socket.on("close", () => resolve(answer)))
  socket.on("error", () => undefined)
  await new Promise<void>((resolve) => socket.once("connect", resolve))
  socket.write(
    `POST /subjects HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAuthorization: Bearer ${key}\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body.slice(0, 20)}`
  )
  return {
    finish: () => {
      socket.write(body.slice(20))
      return closed
    }
  }
}

describeWith(optionalServers.docker, "the container image (README: Run with Docker, Run with compose)", () => {
  const dockerCommands = readmeCommands("Run with Docker")
  const composeCommands = readmeCommands("Run with compose")
  const runDir = mkdtempSync(join(tmpdir(), "svc-docker-"))
  const composeDir = mkdtempSync(join(tmpdir(), "svc-compose-"))
  let port = 0

  const removeReadmeNames = () =>
    sh(`${DOCKER} rm -f svc >/dev/null 2>&1 || true; ${DOCKER} volume rm svc-data >/dev/null 2>&1 || true`, repo)

  beforeAll(async () => {
    await docker(["info", "--format", "{{.ServerVersion}}"]).catch((error: unknown) => {
      throw new Error(`SVC_TEST_DOCKER is set but ${DOCKER} cannot reach dockerd: ${String(error)}`)
    })
    for (const tool of [COMPOSE, "/usr/sbin/debootstrap"]) {
      if (!existsSync(tool))
        throw new Error(`SVC_TEST_DOCKER is set but ${tool} is missing (apt-get install docker-compose debootstrap)`)
    }
    // The test base images: seconds when cached (/var/cache/svc-container), a few minutes cold.
    const started = Date.now()
    await sh("bash scripts/container/base.sh", repo, {}, 20 * MINUTE)
    console.info(`svc container test: base images ready in ${((Date.now() - started) / 1000).toFixed(0)} s`)
    await removeReadmeNames()
    port = await freePort()
  }, 25 * MINUTE)

  afterAll(async () => {
    await removeReadmeNames()
    if (existsSync(join(composeDir, "compose.yaml"))) {
      await sh(`${COMPOSE} -f compose.yaml down -v --remove-orphans`, composeDir).catch(() => undefined)
    }
  }, 5 * MINUTE)

  /**
   * A README command as CI runs it: the build with the flags the README gives for a build here (the
   * test base image, npm's CA bundle as the `npmca` secret), the container published on a free port.
   */
  const forCi = (line: string) => {
    if (line.includes("docker build")) {
      const cafile = process.env.npm_config_cafile ?? "/etc/ssl/certs/ca-certificates.crt"
      const secret = existsSync(cafile) ? ` --secret id=npmca,src=${cafile}` : ""
      const ci = line.replace(/ \.$/, ` --build-arg BASE=${BASE_IMAGE}${secret} ${repo}`)
      expect(ci).not.toBe(line)
      return ci
    }
    return line.replace("-p 3000:3000", `-p ${port}:3000`)
  }

  it("builds from the Dockerfile on the test base: non-root, labelled, svc's layers at most 120 MB", async () => {
    const started = Date.now()
    await sh(forCi(command(dockerCommands, "DOCKER_BUILDKIT=1 docker build")), repo, {}, 40 * MINUTE)
    const seconds = (Date.now() - started) / 1000
    const inspect = async (image: string, format: string) =>
      (await docker(["image", "inspect", "--format", format, image])).stdout.trim()
    expect(await inspect("svc", "{{.Config.User}}")).toBe("1000:1000")
    const labels = JSON.parse(await inspect("svc", "{{json .Config.Labels}}")) as Record<string, string>
    const version =
      (JSON.parse(readFileSync(join(repo, "packages/server/package.json"), "utf8")) as { version: string }).version
    expect(labels["org.opencontainers.image.version"]).toBe(version)
    expect(labels["org.opencontainers.image.licenses"]).toBe("Apache-2.0")
    expect(labels["org.opencontainers.image.source"]).toMatch(/^https:\/\/github\.com\//)
    const added = Number(await inspect("svc", "{{.Size}}")) - Number(await inspect(BASE_IMAGE, "{{.Size}}"))
    console.info(
      `svc container test: image built in ${seconds.toFixed(0)} s; svc's layers ${
        (added / 1e6).toFixed(1)
      } MB over the base`
    )
    expect(added).toBeLessThanOrEqual(120e6)
  }, 45 * MINUTE)

  it(
    "runs with SQLite on the volume: healthy, non-root, a save read back, drained on stop, kept across restart and a new container",
    async () => {
      mkdirSync(runDir, { recursive: true })
      await sh(command(dockerCommands, 'echo "SVC_API_KEYS='), runDir)
      const key = envValue(join(runDir, "svc.env"), "SVC_API_KEYS")
      const run = forCi(command(dockerCommands, "docker run -d"))
      const health = command(dockerCommands, "docker inspect --format '{{.State.Health.Status}}'")
      await sh(run, runDir)
      const healthy = () =>
        until("the health check to pass", async () => (await sh(health, runDir)).stdout.trim() === "healthy")
      expect((await sh(health, runDir)).stdout.trim()).toMatch(/^(starting|healthy)$/)
      await healthy()
      const base = `http://127.0.0.1:${port}`

      // What the bundle reads by a path resolved at run time is in the image: the /docs UI script
      // (@effect/platform's file); a save appends to the transparency log (canonicalize).
      expect((await fetch(`${base}/docs/scalar.js`)).status).toBe(200)
      expect((await fetch(`${base}/log/key`)).status).toBe(200)

      // The process runs as user 1000, not root.
      expect((await docker(["exec", "svc", "cat", "/proc/1/status"])).stdout).toMatch(/^Uid:\s+1000\s/m)

      const subjectId = newSubjectId()
      const externalId = `docker-${subjectId}`
      const saved = await save(base, key, subjectId, externalId)
      expect(saved.status).toBe(200)
      const first = await readBack(base, key, subjectId, externalId)
      expect(first.subject.status).toBe(200)
      expect(first.linked).toBe(true)

      // `docker stop` while a save is in flight: svc drains it, then exits 0 within the drain timeout.
      const drained = newSubjectId()
      const inFlight = await inFlightSave(port, key, drained)
      await new Promise((resolve) => setTimeout(resolve, 500))
      const stopStarted = Date.now()
      const stopping = sh(command(dockerCommands, "docker stop"), runDir)
      await until(
        "svc to start draining",
        async () => (await docker(["logs", "svc"])).stdout.includes("SIGTERM received"),
        30_000
      )
      expect(await inFlight.finish()).toMatch(/^HTTP\/1\.1 200 /)
      await stopping
      expect(Date.now() - stopStarted).toBeLessThan(15_000)
      expect((await docker(["inspect", "--format", "{{.State.ExitCode}}", "svc"])).stdout.trim()).toBe("0")

      // `docker start`: the same data.
      await sh(command(dockerCommands, "docker start"), runDir)
      await healthy()
      expect((await readBack(base, key, subjectId, externalId)).subject.body).toEqual(first.subject.body)
      expect((await fetch(`${base}/subjects/${drained}`)).status).toBe(200)

      // A new container on the same volume: the database and its keys are on the volume, not in the container.
      await docker(["rm", "-f", "svc"])
      await sh(run, runDir)
      await healthy()
      const again = await readBack(base, key, subjectId, externalId)
      expect(again.subject.body).toEqual(first.subject.body)
      expect(again.linked).toBe(true)
    },
    10 * MINUTE
  )

  it("compose: PostgreSQL and two replicas; a save through each reads back through the other", async () => {
    copyFileSync(join(repo, "compose.yaml"), join(composeDir, "compose.yaml"))
    const [portA, portB] = [await freePort(), await freePort()]
    const env = { POSTGRES_IMAGE, SVC_A_PORT: String(portA), SVC_B_PORT: String(portB) }
    const ps = command(composeCommands, "docker-compose -f compose.yaml ps")
    for (const line of composeCommands) if (line !== ps) await sh(line, composeDir, env, 5 * MINUTE)
    const [a, b] = [`http://127.0.0.1:${portA}`, `http://127.0.0.1:${portB}`]
    for (const base of [a, b]) {
      await until(`${base}/health/ready`, async () => (await fetch(`${base}/health/ready`)).status === 200)
    }
    const listed = (await sh(ps, composeDir, env)).stdout
    expect(listed).toMatch(/postgres.*\(healthy\)/)
    await until(
      "both replicas' health checks",
      async () => ((await sh(ps, composeDir, env)).stdout.match(/svc-[ab].*\(healthy\)/g) ?? []).length === 2
    )
    const key = envValue(join(composeDir, "svc.env"), "SVC_API_KEYS")

    for (const [from, to] of [[a, b], [b, a]] as const) {
      // The token one replica signs, the other accepts: they hold the same snapshot key.
      const token = (await fetch(`${from}/init?country=DE`).then(json)).body.policySnapshotToken as string
      expect(token).toEqual(expect.any(String))
      const subjectId = newSubjectId()
      const externalId = `compose-${subjectId}`
      const saved = await save(to, key, subjectId, externalId, token)
      expect(saved.status).toBe(200)
      const back = await readBack(from, key, subjectId, externalId)
      expect(back.subject.status).toBe(200)
      expect(back.linked).toBe(true)
      expect(JSON.stringify(back.subject.body)).toContain("snapshot_token")
    }
  }, 10 * MINUTE)
})
