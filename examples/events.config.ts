import { defineConfig } from "@svc/backend"

export default defineConfig({
  database: { dialect: "postgres", url: process.env.DATABASE_URL! },
  webhooks: [
    // https only (http: is accepted for localhost, 127.0.0.1 and [::1]); the secret is whsec_ + base64 of >= 32 bytes
    { id: "crm", url: "https://crm.example.com/svc-events", secret: process.env.CRM_WEBHOOK_SECRET!, events: ["consent.withdrawn", "subject.erased"] }
  ],
  events: {
    nats: { servers: "nats://127.0.0.1:4222", subject: "svc.events" }, // JetStream: a stream must capture the subject
    delivery: { retry: { baseDelayMs: 5_000, maxDelayMs: 21_600_000, giveUpAfterMs: 259_200_000 } } // the defaults
  }
})
