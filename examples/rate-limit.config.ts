import { defineConfig } from "@svc/backend"

export default defineConfig({
  database: { dialect: "sqlite", url: "./svc.db" },
  rateLimit: {
    store: { redis: process.env.SVC_REDIS_URL! },   // shared by every replica; default 'memory' (per process)
    publicWrites: { limit: 120, windowSeconds: 60 }, // the defaults
    admin: { limit: 600, windowSeconds: 60 },
    init: { limit: 600 }                             // only limited when given
  }
})
