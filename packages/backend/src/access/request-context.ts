/**
 * What a service needs to know about the request it serves, read from the request once by its
 * handler (`http/request-context.ts`): services never see headers. (Not `SvcRequestContext`, which
 * is what a host hands to `svcInstance().handler`.) The tenant is the instance's, in `SvcConfig`.
 */
export interface RequestContext {
  /** The `Authorization: Bearer` API key: valid, sent but not valid, or none sent (absent or blank). */
  readonly apiKey: "valid" | "invalid" | "none"
  /**
   * The visitor's IP as svc stores it: from the configured headers, else the peer; masked unless
   * masking is off; `null` when tracking is off or no address is known.
   */
  readonly ipAddress: string | null
  /** The `User-Agent` header, as sent. */
  readonly userAgent: string | undefined
  /** Global Privacy Control: `Sec-GPC: 1`. */
  readonly gpc: boolean
  /**
   * The visitor's country as /init locates it without overrides: the edge's location headers, else
   * the client IP in the IP database; `null` when neither knows it.
   */
  readonly country: string | null
  /**
   * Fields a service adds to the request's single log line (and so to the metrics read from it);
   * `undefined` outside the edge.
   */
  readonly logFields: Record<string, unknown> | undefined
}
