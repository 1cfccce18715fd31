import type { SvcError, SvcErrorCode } from "@svc/client"

/** What every method resolves to (`SvcResult<T, C>` from "@svc/client", with readonly fields). */
export type SvcResultShape<T, C extends SvcErrorCode> =
  | { ok: true; data: T; status: number; requestId: string; headers: Record<string, string> }
  | { ok: false; error: SvcError<C> }
