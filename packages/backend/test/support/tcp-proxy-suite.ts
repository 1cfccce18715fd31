import { afterAll, beforeAll } from "vitest"
import { startTcpProxy, type TcpProxy } from "./tcp-proxy.js"

/**
 * `startTcpProxy` for the enclosing `describe` block: started before its tests (vitest
 * `beforeAll`), so nothing listens unless the suite runs, and stopped after them.
 */
export const useTcpProxy = (target: { readonly host: string; readonly port: number }): TcpProxy => {
  let proxy: TcpProxy | undefined
  beforeAll(async () => {
    proxy = await startTcpProxy(target)
  })
  afterAll(async () => {
    await proxy?.stop()
  })
  const started = () => {
    if (proxy === undefined) throw new Error("proxy not started")
    return proxy
  }
  return {
    port: () => started().port(),
    url: () => started().url(),
    stop: () => started().stop(),
    start: () => started().start(),
    freeze: () => started().freeze(),
    thaw: () => started().thaw()
  }
}
