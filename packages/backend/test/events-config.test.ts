import { resolveOptions, SvcConfigurationError } from "@svc/backend"
import { randomBytes } from "node:crypto"
import { describe, expect, it } from "vitest"

const database = { dialect: "sqlite", url: ":memory:" } as const
const secret = `whsec_${randomBytes(32).toString("base64")}`

const problemsOf = (options: Record<string, unknown>): ReadonlyArray<string> => {
  try {
    resolveOptions({ database, ...options })
  } catch (error) {
    expect(error).toBeInstanceOf(SvcConfigurationError)
    return (error as SvcConfigurationError).issues
  }
  throw new Error("accepted invalid options")
}

describe("webhooks and events options", () => {
  it("accepts https endpoints, http on loopback, a Standard Webhooks secret and NATS; applies the defaults", () => {
    const resolved = resolveOptions({
      database,
      webhooks: [
        { id: "crm", url: "https://crm.example/hooks", secret },
        { id: "dev", url: "http://localhost:8080/hooks", secret, events: ["consent.withdrawn"] },
        { id: "dev4", url: "http://127.0.0.1/hooks", secret },
        { id: "dev6", url: "http://[::1]:9000/", secret }
      ],
      events: { nats: { servers: "nats://127.0.0.1:4222", subject: "svc.events" } }
    })
    expect(resolved.events.webhooks.map((w) => w.id)).toEqual(["crm", "dev", "dev4", "dev6"])
    expect(resolved.events.nats).toEqual({ servers: ["nats://127.0.0.1:4222"], subject: "svc.events" })
    expect(resolved.events.delivery).toMatchObject({
      enabled: true,
      timeoutMs: 10_000,
      retry: { baseDelayMs: 5_000, maxDelayMs: 21_600_000, giveUpAfterMs: 259_200_000 }
    })
  })

  it("refuses plain http off loopback, bad secrets, unknown event types and duplicate ids, never quoting a secret", () => {
    const shortSecret = `whsec_${randomBytes(16).toString("base64")}`
    const problems = problemsOf({
      webhooks: [
        { id: "a", url: "http://crm.example/hooks", secret },
        { id: "b", url: "https://crm.example/hooks", secret: shortSecret },
        { id: "c", url: "https://crm.example/hooks", secret: "hunter2-not-whsec" },
        { id: "d", url: "https://crm.example/hooks", secret, events: ["consent.given"] },
        { id: "d", url: "not a url", secret },
        { id: "nats", url: "https://x.example", secret }
      ],
      events: { nats: { servers: [], subject: "svc.>" }, delivery: { timeoutMs: 5_000, leaseMs: 1_000 } }
    })
    expect(problems).toEqual(expect.arrayContaining([
      "webhooks[0].url: must use https: (http: only for localhost, 127.0.0.1 or [::1])",
      "webhooks[1].secret: must encode at least 32 bytes; generate one with `svc keys webhook`",
      "webhooks[2].secret: must be whsec_ followed by base64 (Standard Webhooks form); generate one with `svc keys webhook`",
      expect.stringMatching(/^webhooks\[3\]\.events\[0\]: unknown event type "consent\.given"/), // the entry itself is named
      expect.stringMatching(/^webhooks\[4\]\.id: "d" is used twice/),
      "webhooks[4].url: must be an absolute URL",
      expect.stringMatching(/^webhooks\[5\]\.id: "nats"/),
      "events.nats.servers: must be a server URL or a non-empty list of them",
      "events.nats.subject: must be a NATS subject without wildcards, e.g. svc.events",
      "events.delivery.leaseMs: must be longer than events.delivery.timeoutMs"
    ]))
    const text = problems.join("\n")
    expect(text).not.toContain(shortSecret)
    expect(text).not.toContain("hunter2")
    expect(text).not.toContain(secret)
    // A secret of the wrong type is named, not quoted.
    const typed = problemsOf({ webhooks: [{ id: "x", url: "https://x.example", secret: 12345678901 }] })
    expect(typed.join("\n")).toMatch(/webhooks\[0\]\.secret/)
    expect(typed.join("\n")).not.toContain("12345678901")
  })
})
