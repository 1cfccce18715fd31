import type { SvcCallOptions } from "../call-options.js"
import type { SvcApiClient } from "../effect-client.js"
import type { SvcIssue } from "../errors.js"
import type { SvcResult } from "../result.js"
import type { Runtime } from "../runner.js"
import { checkPart, defined, endpointOf, objectIssue } from "../validate.js"
import { callMethod, type KeyCodesOf, type SuccessOf } from "./define.js"
import { callOf } from "../transport.js"

export interface ListDeliveriesInput {
  readonly status?: "pending" | "failed" | "delivered"
  /** A webhook id, `nats`, or a custom sink's id. */
  readonly endpoint?: string
  /** 1 to 500; default 100. */
  readonly limit?: number
}
export type DeliveryListData = SuccessOf<SvcApiClient["events"]["listDeliveries"]>
export type DeliveryListCode = KeyCodesOf<SvcApiClient["events"]["listDeliveries"]>
export type DeliveryData = SuccessOf<SvcApiClient["events"]["retryDelivery"]>
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
        return {
          auth: "required",
          call: callOf("events", "listDeliveries", { urlParams }),
          toData: (value) => ({ data: value as DeliveryListData })
        }
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
        return {
          auth: "required",
          call: callOf("events", "retryDelivery", { path: { id: encodeURIComponent(id) } }),
          toData: (value) => ({ data: value as DeliveryData })
        }
      }
    )
})
