import { type AddressInfo, createServer, connect, type Server, type Socket } from "node:net"

/**
 * A TCP proxy on a fixed local port in front of `target` (host:port) that can be stopped and
 * started again: the service behind it looks down, then back, to whoever connects through it; or
 * frozen, when it looks hung (connections open, nothing answered). No vitest here: the event drill
 * (`npm run bench -- events`) runs it outside the test runner; `useTcpProxy` is in tcp-proxy-suite.ts.
 */
export const startTcpProxy = async (target: { readonly host: string; readonly port: number }) => {
  const sockets = new Set<Socket>()
  const pairs = new Set<readonly [Socket, Socket]>()
  let frozen = false
  let server: Server | undefined
  let port = 0
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const s = createServer((client) => {
        sockets.add(client)
        client.on("close", () => sockets.delete(client))
        // Frozen: the connection is accepted and then never answered, like a hung database host.
        if (frozen) return
        const upstream = connect(target.port, target.host)
        for (const socket of [client, upstream]) {
          sockets.add(socket)
          socket.on("close", () => sockets.delete(socket))
          socket.on("error", () => {
            client.destroy()
            upstream.destroy()
          })
        }
        client.pipe(upstream)
        upstream.pipe(client)
        pairs.add([client, upstream])
        client.on("close", () => pairs.forEach((pair) => pair[0] === client && pairs.delete(pair)))
      })
      s.once("error", reject)
      s.listen(port, "127.0.0.1", () => {
        port = (s.address() as AddressInfo).port
        server = s
        resolve()
      })
    })
  await listen()
  const stop = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy()
      const s = server
      server = undefined
      if (s === undefined) resolve()
      else s.close(() => resolve())
    })
  /** Connections stay open but no byte passes either way any more, and new ones hang: no refusal, no answer. */
  const freeze = () => {
    frozen = true
    for (const [client, upstream] of pairs) {
      client.unpipe(upstream)
      upstream.unpipe(client)
    }
  }
  /** Ends a freeze: the hung connections are dropped, new ones pass again. */
  const thaw = () => {
    frozen = false
    for (const socket of sockets) socket.destroy()
  }
  return { port: () => port, url: () => `nats://127.0.0.1:${port}`, stop, start: listen, freeze, thaw }
}

export type TcpProxy = Awaited<ReturnType<typeof startTcpProxy>>
