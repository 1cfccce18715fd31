import type { SqlDialect } from "@svc/backend"
import { EEA } from "./eea.js"

/** What `svc init` asked (or took as default) to write the files. */
export interface InitAnswers {
  readonly dialect: SqlDialect
  /** Postgres/MySQL connection URL; SQLite keeps its file `./svc.db` in the config. */
  readonly databaseUrl: string
  /** Hosts whose pages show the banner (`trustedOrigins`). */
  readonly origins: ReadonlyArray<string>
}

/** The database URL `svc init --yes` writes into `.env` for a server dialect: edit it there. */
export const DEFAULT_DATABASE_URLS: Readonly<Record<Exclude<SqlDialect, "sqlite">, string>> = {
  postgres: "postgres://svc:change-me@127.0.0.1:5432/svc",
  mysql: "mysql://svc:change-me@127.0.0.1:3306/svc"
}

const list = (values: ReadonlyArray<string>) => values.map((v) => JSON.stringify(v)).join(", ")

/** The `countries` array of the EEA rule, wrapped to fit the file's width. */
const eeaLines = () => {
  const lines: Array<string> = []
  for (let i = 0; i < EEA.length; i += 15) lines.push(`  ${list(EEA.slice(i, i + 15))}`)
  return lines.join(",\n")
}

const databaseBlock = (answers: InitAnswers) =>
  answers.dialect === "sqlite"
    ? `  // A SQLite file beside this config (\`svc serve\` replaces the url with SVC_DATABASE_URL when set).
  database: { dialect: "sqlite", url: "./svc.db" },`
    : `  // ${
      answers.dialect === "postgres" ? "PostgreSQL" : "MySQL or MariaDB"
    }; the URL (with its password) lives in .env.
  database: { dialect: "${answers.dialect}", url: env("SVC_DATABASE_URL") },`

/** `svc.config.ts`: commented, every secret read from the environment (`.env`). */
export const configFile = (answers: InitAnswers): string =>
  `// svc.config.ts, written by \`svc init\`. \`svc serve\` (and \`svc migrate\`, \`svc purge\`) read it from
// this directory. Every option is described in svc's README, "Configuration".
// Only a type comes from @svc/backend: the file loads the same in an ES module or CommonJS project.
import type { SvcConfigOptions } from "@svc/backend"
import { existsSync } from "node:fs"

// Secrets come from the environment, or from ./.env (written by \`svc init\`; keep it out of version
// control). A variable already set in the environment wins over .env.
if (existsSync(".env")) process.loadEnvFile(".env")

/** A variable this config needs; a missing one stops svc with its name (see .env.example). */
const env = (name: string): string => {
  const value = process.env[name]
  if (value === undefined || value === "") throw new Error(\`\${name} is not set: see .env.example\`)
  return value
}

// EU member states, Iceland, Liechtenstein and Norway: the GDPR and the ePrivacy rules apply.
const EEA = [
${eeaLines()}
]

// The categories a visitor chooses; "necessary" is always on and never asked.
const categories = ["measurement", "marketing", "functionality", "experience"] as const

export default {
${databaseBlock(answers)}
  // Pages on these hosts may call svc from the browser (saves, reads). "*.example.com" matches
  // subdomains, "example.com:8443" one port. /init answers every origin regardless.
  trustedOrigins: [${list(answers.origins)}],
  // Bearer keys for the administrative routes (consent checks, exports, legal documents).
  apiKeys: [env("SVC_API_KEY")],
  // Signs each /init decision; a save carries it back, so every record names the rule it was made under.
  policySnapshot: { signingKey: env("SVC_SNAPSHOT_KEY") },
  // Identity links made from the browser with a token your server mints (\`svc token identity\`):
  // identityToken: { signingKey: env("SVC_IDENTITY_KEY") },
  // Consent events to your systems, signed (Standard Webhooks):
  // webhooks: [{ id: "crm", url: "https://crm.example.com/hooks/svc", secret: env("SVC_WEBHOOK_SECRET") }],
  manifest: {
    // Rules are tried in order; the first whose match fits the visitor's location applies. The
    // location comes from your CDN or proxy (cf-ipcountry, x-vercel-ip-country, cloudfront-viewer-country, ...).
    policyRules: [
      // EEA: nothing optional before consent; a choice is asked again after a year.
      { id: "eu", match: { countries: EEA }, model: "opt-in", categories: [...categories], validityDays: 365 },
      // United Kingdom (UK GDPR, PECR): the same.
      { id: "uk", match: { countries: ["GB"] }, model: "opt-in", categories: [...categories], validityDays: 365 },
      // California (CCPA/CPRA): on until the visitor opts out; the Global Privacy Control signal opts
      // out of marketing by itself.
      {
        id: "california",
        match: { regions: ["US-CA"] },
        model: "opt-out",
        categories: [...categories],
        gpcDenies: ["marketing"]
      },
      // Location unknown (no country header reached svc): ask first, as in the EEA. Without this rule
      // such a visitor would get the default rule below, and no banner.
      { id: "unknown-location", match: { fallback: true }, model: "opt-in", categories: [...categories] },
      // Everyone else: opt-out, GPC honoured.
      {
        id: "rest-of-world",
        match: { default: true },
        model: "opt-out",
        categories: [...categories],
        gpcDenies: ["marketing"]
      }
    ]
  }
} satisfies SvcConfigOptions
`

/** One variable of `.env`: its comment lines and value. */
interface EnvVariable {
  readonly name: string
  readonly comment: string
  readonly value: string
  /** Written commented out (an option the config leaves off). */
  readonly optional?: boolean
}

const envVariables = (answers: InitAnswers, secrets: EnvSecrets): ReadonlyArray<EnvVariable> => [
  ...(answers.dialect === "sqlite" ? [] : [{
    name: "SVC_DATABASE_URL",
    comment: `${answers.dialect === "postgres" ? "PostgreSQL" : "MySQL/MariaDB"} connection URL (database.url)`,
    value: answers.databaseUrl
  }]),
  { name: "SVC_API_KEY", comment: "Bearer key for the administrative routes: npx svc keys api", value: secrets.api },
  {
    name: "SVC_SNAPSHOT_KEY",
    comment: "Signs each /init decision (policySnapshot.signingKey): npx svc keys snapshot",
    value: secrets.snapshot
  },
  {
    name: "SVC_IDENTITY_KEY",
    comment: "Only with identityToken in svc.config.ts: npx svc keys identity",
    value: secrets.identity,
    optional: true
  },
  {
    name: "SVC_WEBHOOK_SECRET",
    comment: "Only with webhooks in svc.config.ts: npx svc keys webhook",
    value: secrets.webhook,
    optional: true
  }
]

export interface EnvSecrets {
  readonly api: string
  readonly snapshot: string
  readonly identity: string
  readonly webhook: string
}

const envText = (header: string, variables: ReadonlyArray<EnvVariable>, valueOf: (v: EnvVariable) => string) =>
  `${header}\n${
    variables.map((v) => `\n# ${v.comment}\n${v.optional === true ? "# " : ""}${v.name}=${valueOf(v)}`).join("\n")
  }\n`

/** `.env.example`: every variable the config reads, with how to make its value; no secret in it. */
export const envExampleFile = (answers: InitAnswers, secrets: EnvSecrets): string =>
  envText(
    "# The variables svc.config.ts reads. Copy this file to .env (`svc init` wrote one with fresh values)\n# and never commit .env.",
    envVariables(answers, secrets),
    (v) => (v.name === "SVC_DATABASE_URL"
      ? (answers.dialect === "sqlite" ? "" : DEFAULT_DATABASE_URLS[answers.dialect])
      : "")
  )

/** `.env`: the same variables with fresh random values (and the database URL given). */
export const envFile = (answers: InitAnswers, secrets: EnvSecrets): string =>
  envText(
    "# Written by `svc init` with fresh random values. Secret: keep it out of version control.",
    envVariables(answers, secrets),
    (v) => v.value
  )
