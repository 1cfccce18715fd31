import express from "express"
import { verifyWebhook } from "@svc/client"

const app = express()
app.post("/svc-events", express.text({ type: "application/json" }), (req, res) => {
  const result = verifyWebhook(req.body, req.headers, process.env.CRM_WEBHOOK_SECRET!)
  if (!result.ok) return res.status(400).end()
  // At least once: the same event.id can arrive again. Deduplicate on it.
  if (result.event.type === "consent.withdrawn") stopMarketing(result.event.data.record.principal.subjectId)
  res.status(204).end()
})

// The example's stand-ins: what your code does with a withdrawal, and the app for the test to start.
export const stopped: Array<string> = []
function stopMarketing(subjectId: string) {
  stopped.push(subjectId)
}
export { app }
