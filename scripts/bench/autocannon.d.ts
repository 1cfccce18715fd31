// The slice of autocannon's API the benchmarks use (the package ships no types).
declare module "autocannon" {
  interface Options {
    readonly url: string
    readonly connections?: number
    readonly duration?: number
    readonly pipelining?: number
    readonly headers?: Record<string, string>
    /** Requests sent in turn on each connection. */
    readonly requests?: ReadonlyArray<RequestSpec>
  }
  interface RequestSpec {
    readonly method?: string
    readonly path?: string
    readonly headers?: Record<string, string>
    readonly body?: string
    readonly setupRequest?: (request: RequestSpec) => RequestSpec
  }
  interface Histogram {
    readonly average: number
    /** Requests: how many in all (latency: the number of samples). */
    readonly total: number
    readonly p50: number
    readonly p99: number
  }
  interface Result {
    readonly requests: Histogram
    readonly latency: Histogram
    readonly errors: number
    readonly timeouts: number
    readonly non2xx: number
  }
  function autocannon(options: Options): Promise<Result>
  export default autocannon
}
