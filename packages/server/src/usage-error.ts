/** A command used wrongly: `svc` prints the message and its usage, and exits 1. */
export class UsageError extends Error {}
