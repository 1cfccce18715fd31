import { createSvcClient, unwrap } from "@svc/client"
import { createHash } from "node:crypto"

/**
 * CI step after deploying a new privacy policy. Publishing the same text, version and date again
 * is a no-op, so the step can run on every deploy; a changed date for the same text is CONFLICT.
 */
export async function publishPrivacyPolicy(options: {
  readonly baseUrl: string
  readonly apiKey: string
  readonly text: string
  readonly version: string
  readonly effectiveDate: string
}) {
  const svc = createSvcClient({ baseUrl: options.baseUrl, apiKey: options.apiKey })
  const hash = createHash("sha256").update(options.text).digest("hex")
  // unwrap throws the SvcError, which fails the CI job with its code and message.
  const { policy } = await unwrap(
    svc.legalDocuments.publish("privacy_policy", { version: options.version, hash, effectiveDate: options.effectiveDate })
  )
  return policy
}
