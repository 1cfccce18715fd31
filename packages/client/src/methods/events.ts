import type { SvcCallOptions } from "../call-options.js"
import type { SvcApiClient } from "../effect-client.js"
import type { SvcIssue } from "../errors.js"
import type { SvcResult } from "../result.js"
import { bodyOperation, type Runtime } from "../runner.js"
import { checkPart, defined, endpointOf, objectIssue } from "../validate.js"
import { callMethod, type KeyCodesOf, type SuccessOf } from "./define.js"
import { callOf } from "../transport.js"

/**
 * Which deliveries `events.listDeliveries` returns: by status and endpoint, at most `limit` (1 to 500).
 *
 * @example
 * ```ts
 * import type { ListDeliveriesInput } from "@svc/client"
 *
 * // What the CRM webhook has not received yet.
 * const stuckForCrm: ListDeliveriesInput = { status: "pending", endpoint: "crm-webhook", limit: 500 }
 * ```
 */
export interface ListDeliveriesInput {
  readonly status?: "pending" | "failed" | "delivered"
  /** A webhook id, `nats`, or a custom sink's id. */
  readonly endpoint?: string
  /** 1 to 500; default 100. */
  readonly limit?: number
}
/**
 * `events.listDeliveries`'s data: the deliveries, newest event first.
 *
 * @example
 * ```ts
 * import type { DeliveryListData } from "@svc/client"
 *
 * // An alert when an endpoint was disabled by a 410 and no longer receives events.
 * const disabledEndpoints = ({ deliveries }: DeliveryListData) =>
 *   [...new Set(deliveries.filter((delivery) => delivery.endpointDisabled).map((delivery) => delivery.endpoint))]
 * ```
 */
export type DeliveryListData = SuccessOf<SvcApiClient["events"]["listDeliveries"]>
/**
 * The codes `events.listDeliveries` can fail with.
 *
 * @example
 * ```ts
 * import type { DeliveryListCode } from "@svc/client"
 *
 * // The ops dashboard greys the panel out rather than alerting when only svc itself is unavailable.
 * const panelState = (code: DeliveryListCode) =>
 *   code === "UNAUTHORIZED" || code === "MISSING_API_KEY" ? "misconfigured" : "unavailable"
 * ```
 */
export type DeliveryListCode = KeyCodesOf<SvcApiClient["events"]["listDeliveries"]>
/**
 * `events.retryDelivery`'s data: the delivery as it is now (status, attempts, last error, next attempt).
 *
 * @example
 * ```ts
 * import type { DeliveryData } from "@svc/client"
 *
 * // After a manual retry the operator sees whether it went through at once or is scheduled.
 * const retryOutcome = (delivery: DeliveryData) =>
 *   delivery.status === "delivered"
 *     ? `delivered at ${delivery.deliveredAt?.toISOString()}`
 *     : `${delivery.status}, next attempt ${delivery.nextAttemptAt?.toISOString() ?? "not scheduled"}` +
 *       ` (${delivery.lastError ?? "no error"})`
 * ```
 */
export type DeliveryData = SuccessOf<SvcApiClient["events"]["retryDelivery"]>
/**
 * The codes `events.retryDelivery` can fail with: `NOT_FOUND` for an unknown delivery id.
 *
 * @example
 * ```ts
 * import type { RetryDeliveryCode } from "@svc/client"
 *
 * // The ops console's message after a manual retry, by what went wrong.
 * const retryMessage = (code: RetryDeliveryCode) =>
 *   code === "NOT_FOUND" ? "No delivery has this id: copy it again from the list" : `Retry failed: ${code}`
 * ```
 */
export type RetryDeliveryCode = KeyCodesOf<SvcApiClient["events"]["retryDelivery"]>

export interface EventMethods {
  /** `GET /events/deliveries` (API key): deliveries of consent events, newest first, by status and endpoint. */
  readonly listDeliveries: (
    input?: ListDeliveriesInput,
    options?: SvcCallOptions
  ) => Promise<SvcResult<DeliveryListData, DeliveryListCode>>
  /** `POST /events/deliveries/:id/retry` (API key): send again now; re-enables an endpoint a 410 disabled. */
  readonly retryDelivery: (id: string, options?: SvcCallOptions) => Promise<SvcResult<DeliveryData, RetryDeliveryCode>>
}

const list = endpointOf("events", "listDeliveries")
const retry = endpointOf("events", "retryDelivery")

export const eventMethods = (runtime: Runtime): EventMethods => ({
  listDeliveries: (input, options) =>
    callMethod<DeliveryListData, DeliveryListCode>(
      runtime,
      { name: "events.listDeliveries", needsKey: true },
      options,
      () => {
        if (input !== undefined) {
          const shape = objectIssue(input, [], "optional status, endpoint and limit")
          if (shape.length > 0) return shape
        }
        const urlParams = defined({ status: input?.status, endpoint: input?.endpoint, limit: input?.limit })
        const issues: Array<SvcIssue> = checkPart(list.urlParamsSchema, urlParams)
        if (issues.length > 0) return issues
        return bodyOperation("required", callOf("events", "listDeliveries", { urlParams }))
      }
    ),
  retryDelivery: (id, options) =>
    callMethod<DeliveryData, RetryDeliveryCode>(
      runtime,
      { name: "events.retryDelivery", needsKey: true },
      options,
      () => {
        const issues: Array<SvcIssue> = typeof id === "string"
          ? checkPart(retry.pathSchema, { id })
          : [{ path: ["id"], message: "must be a string" }]
        if (issues.length > 0) return issues
        return bodyOperation("required", callOf("events", "retryDelivery", { path: { id: encodeURIComponent(id) } }))
      }
    )
})
