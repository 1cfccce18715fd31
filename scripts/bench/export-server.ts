/** The server of the export benchmark, in a process of its own so its memory is measured alone. */
import { startServer } from "@svc/server"

const [file, port, apiKey] = process.argv.slice(2)
const server = await startServer(
  { database: { dialect: "sqlite", url: file! }, apiKeys: [apiKey!], observability: { requests: "none" } },
  { port: Number(port), host: "127.0.0.1" }
)
console.log(`export bench server listening on ${server.url}`)
process.on("SIGTERM", () => void server.close().then(() => process.exit(0)))
