/**
 * The ceiling of the subjects bench (scripts/bench/subjects.ts), written to a file and run by plain
 * Node: node:http and the bare driver, no framework. POST inserts a subject and a consent
 * row like svc's (ON CONFLICT DO NOTHING or INSERT IGNORE, JSON text columns); GET selects the subject and its
 * consents and answers them as JSON.
 */
export const ceilingSource = `
import { createServer } from "node:http"
import { randomBytes } from "node:crypto"
const dialect = process.env.CEILING_DIALECT
const driver = (await import(process.env.CEILING_DRIVER)).default
let insertSubject, insertConsent, selectSubject, selectConsents
if (dialect === "sqlite") {
  const db = new driver(process.env.CEILING_DB)
  db.pragma("journal_mode = WAL")
  db.pragma("synchronous = FULL") // svc's durability: a save is answered once it survives power loss
  const is = db.prepare("INSERT INTO svc_subjects (id, tenant_id, external_id, identity_provider, verified, created_at, updated_at) VALUES (?, '', NULL, NULL, 0, ?, ?) ON CONFLICT DO NOTHING")
  const ic = db.prepare("INSERT INTO svc_consents (id, tenant_id, subject_id, act_key, act_digest, type, domain, given_at, created_at, preferences, receipts, ip_address, user_agent, action, surface, time_to_decision_ms) VALUES (?, '', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING")
  const ss = db.prepare("SELECT * FROM svc_subjects WHERE id = ? AND tenant_id = ''")
  const sc = db.prepare("SELECT * FROM svc_consents WHERE subject_id = ? AND tenant_id = '' ORDER BY given_at, created_at, id")
  insertSubject = async (...a) => is.run(...a)
  insertConsent = async (...a) => ic.run(...a)
  selectSubject = async (id) => ss.get(id)
  selectConsents = async (id) => sc.all(id)
} else if (dialect === "mysql") {
  const pool = driver.createPool({ uri: process.env.CEILING_DB, connectionLimit: 10 }).promise()
  insertSubject = (id, a, b) => pool.query("INSERT IGNORE INTO svc_subjects (id, tenant_id, external_id, identity_provider, verified, created_at, updated_at) VALUES (?, '', NULL, NULL, 0, ?, ?)", [id, a, b])
  insertConsent = (...a) => pool.query("INSERT IGNORE INTO svc_consents (id, tenant_id, subject_id, act_key, act_digest, type, domain, given_at, created_at, preferences, receipts, ip_address, user_agent, action, surface, time_to_decision_ms) VALUES (?, '', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", a)
  selectSubject = async (id) => (await pool.query("SELECT * FROM svc_subjects WHERE id = ? AND tenant_id = ''", [id]))[0][0]
  selectConsents = async (id) => (await pool.query("SELECT * FROM svc_consents WHERE subject_id = ? AND tenant_id = '' ORDER BY given_at, created_at, id", [id]))[0]
} else {
  const url = new URL(process.env.CEILING_DB)
  url.searchParams.set("options", "-c search_path=" + process.env.CEILING_SCHEMA)
  const pool = new driver.Pool({ connectionString: url.toString(), max: 10 })
  insertSubject = (id, a, b) => pool.query("INSERT INTO svc_subjects (id, tenant_id, external_id, identity_provider, verified, created_at, updated_at) VALUES ($1, '', NULL, NULL, 0, $2, $3) ON CONFLICT DO NOTHING", [id, a, b])
  insertConsent = (...a) => pool.query("INSERT INTO svc_consents (id, tenant_id, subject_id, act_key, act_digest, type, domain, given_at, created_at, preferences, receipts, ip_address, user_agent, action, surface, time_to_decision_ms) VALUES ($1, '', $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) ON CONFLICT DO NOTHING", a)
  selectSubject = async (id) => (await pool.query("SELECT * FROM svc_subjects WHERE id = $1 AND tenant_id = ''", [id])).rows[0]
  selectConsents = async (id) => (await pool.query("SELECT * FROM svc_consents WHERE subject_id = $1 AND tenant_id = '' ORDER BY given_at, created_at, id", [id])).rows
}
const json = (res, status, value) => {
  const body = JSON.stringify(value)
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
  res.end(body)
}
createServer((req, res) => {
  const chunks = []
  req.on("data", (c) => chunks.push(c))
  req.on("end", async () => {
    try {
      if (req.method === "POST") {
        const b = JSON.parse(Buffer.concat(chunks).toString())
        const now = Date.now()
        const id = "cns_" + randomBytes(16).toString("base64url")
        const key = randomBytes(32).toString("hex")
        await insertSubject(b.subjectId, now, now)
        await insertConsent(id, b.subjectId, key, key, b.type, b.domain, b.givenAt, now, JSON.stringify(b.preferences), JSON.stringify(b.receipts), "198.51.100.0", req.headers["user-agent"] ?? null, b.action, b.surface, b.timeToDecisionMs)
        return json(res, 200, { subjectId: b.subjectId, consentId: id, appliedPreferences: b.preferences, givenAt: new Date(b.givenAt).toISOString() })
      }
      const id = req.url.split("/")[2]
      const subject = await selectSubject(id)
      if (subject === undefined) return json(res, 404, { message: "No such subject" })
      const consents = await selectConsents(id)
      return json(res, 200, { subject, consents: consents.map((c) => ({ ...c, preferences: JSON.parse(c.preferences), receipts: JSON.parse(c.receipts) })) })
    } catch (error) {
      json(res, 500, { message: String(error) })
    }
  })
}).listen(Number(process.env.CEILING_PORT), "127.0.0.1", () => console.log("ceiling ready"))
`
