import { defineConfig } from "@svc/backend"

// Exports, the insight page and experiment summaries read from a standby (README, "Reads from a standby").
export default defineConfig({
  database: {
    dialect: "postgres",
    url: "postgres://svc@db1:5432,db2:5432/svc?target_session_attrs=read-write",
    readUrl: "postgres://svc@db1:5432,db2:5432/svc?target_session_attrs=prefer-standby"
  }
})
