import { databaseUrlProblem, type SqlDialect } from "@svc/backend"
import { existsSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { createInterface } from "node:readline/promises"
import { configFile, DEFAULT_DATABASE_URLS, envExampleFile, envFile, type InitAnswers } from "./init-template.js"
import { keyKinds } from "./keys.js"
import { UsageError } from "./usage-error.js"

const DIALECTS: ReadonlyArray<SqlDialect> = ["sqlite", "postgres", "mysql"]

const isDialect = (value: string): value is SqlDialect => DIALECTS.some((dialect) => dialect === value)

export interface InitFlags {
  readonly dialect?: string | undefined
  /** Take every default without asking (also what happens when stdin is not a terminal). */
  readonly yes: boolean
  /** Overwrite `svc.config.ts` and `.env.example` when they exist (`.env` is never overwritten). */
  readonly force: boolean
}

type Ask = (question: string, fallback: string, check: (answer: string) => string | undefined) => Promise<string>

/** Asks on the terminal until `check` accepts the answer; an empty answer takes `fallback`. */
const terminalAsk = (rl: ReturnType<typeof createInterface>): Ask => async (question, fallback, check) => {
  for (;;) {
    const answer = (await rl.question(`${question} [${fallback}]: `)).trim() || fallback
    const problem = check(answer)
    if (problem === undefined) return answer
    console.log(`  ${problem}`)
  }
}

/** Only what `svc init` must know: the database (unless `--dialect`), its URL, the site's host. */
const askAnswers = async (flags: InitFlags, ask: Ask | undefined): Promise<InitAnswers> => {
  const take: Ask = ask ?? (async (_question, fallback) => fallback)
  const dialect = flags.dialect ?? await take(
    "Database: sqlite, postgres or mysql",
    "sqlite",
    (answer) => (isDialect(answer) ? undefined : "one of sqlite, postgres, mysql")
  )
  if (!isDialect(dialect)) throw new UsageError(`--dialect: one of ${DIALECTS.join(", ")} (got "${dialect}")`)
  const databaseUrl = dialect === "sqlite" ? "./svc.db" : await take(
    `${dialect === "postgres" ? "PostgreSQL" : "MySQL"} URL (goes into .env)`,
    DEFAULT_DATABASE_URLS[dialect],
    (answer) => databaseUrlProblem(dialect, answer)
  )
  const origin = await take(
    "Host of the site that shows the banner (e.g. www.example.com)",
    "localhost",
    (answer) => (/^[\w.*:[\]-]+$/.test(answer) ? undefined : "a host such as www.example.com, without a scheme")
  )
  return { dialect, databaseUrl, origins: origin === "localhost" ? ["localhost", "127.0.0.1"] : [origin] }
}

/**
 * `svc init`: writes `svc.config.ts` and `.env.example` into `cwd`, and `.env` with fresh keys when
 * there is none. Refuses (writing nothing) when one of the first two exists, unless `--force`.
 * Returns the lines to print.
 */
export const init = async (cwd: string, flags: InitFlags): Promise<ReadonlyArray<string>> => {
  if (flags.dialect !== undefined && !isDialect(flags.dialect)) {
    throw new UsageError(`--dialect: one of ${DIALECTS.join(", ")} (got "${flags.dialect}")`)
  }
  const paths = { config: join(cwd, "svc.config.ts"), example: join(cwd, ".env.example"), env: join(cwd, ".env") }
  const existing = [paths.config, paths.example].filter((path) => existsSync(path))
  if (existing.length > 0 && !flags.force) {
    throw new UsageError(
      `svc init: ${existing.join(" and ")} already exist${existing.length === 1 ? "s" : ""}; pass --force to overwrite`
    )
  }
  const interactive = !flags.yes && process.stdin.isTTY === true
  const rl = interactive ? createInterface({ input: process.stdin, output: process.stdout }) : undefined
  let answers: InitAnswers
  try {
    answers = await askAnswers(flags, rl === undefined ? undefined : terminalAsk(rl))
  } finally {
    rl?.close()
  }
  const secrets = {
    api: keyKinds.api.generate(),
    snapshot: keyKinds.snapshot.generate(),
    identity: keyKinds.identity.generate(),
    webhook: keyKinds.webhook.generate()
  }
  writeFileSync(paths.config, configFile(answers))
  writeFileSync(paths.example, envExampleFile(answers, secrets))
  const keptEnv = existsSync(paths.env)
  // Never overwritten, even with --force: it holds the keys clients and saved tokens depend on.
  if (!keptEnv) writeFileSync(paths.env, envFile(answers, secrets), { mode: 0o600 })
  return [
    `svc init: wrote svc.config.ts (${answers.dialect}) and .env.example`,
    keptEnv
      ? "svc init: kept the existing .env; add what .env.example lists and it lacks"
      : "svc init: wrote .env with fresh keys (mode 0600; keep it out of version control)",
    "Next: npx svc serve, then curl -H 'cf-ipcountry: DE' http://127.0.0.1:3000/init"
  ]
}
