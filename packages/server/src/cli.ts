import {
  migrateDatabase,
  openApiDocument,
  purgeOnce,
  resolveOptions,
  signIdentityToken,
  sqlClientLayer,
  SvcConfigurationError,
  type SvcOptions
} from "@svc/backend"
import { Effect } from "effect"
import { parseArgs } from "node:util"
import { findConfigFile, loadConfig } from "./config-file.js"
import { demoOptions } from "./demo.js"
import { optionsFromEnvironment, readEnvironment, variablesSet } from "./environment.js"
import { init } from "./init.js"
import { keys, keysUsage } from "./keys.js"
import { servePlan, withLogFlags } from "./serve-options.js"
import { shareModulesWithConfigs } from "./shared-modules.js"
import { startServer } from "./start.js"
import { describeStartupFailure } from "./startup-failure.js"
import { UsageError } from "./usage-error.js"
import { verifyCommand } from "./verify.js"

const usage = `Usage:
  svc init [--dialect sqlite|postgres|mysql] [--yes] [--force]
                                                    write svc.config.ts, .env.example and .env
  svc serve [--config FILE] [--port N] [--host H] [--demo]
            [--log-format json|logfmt|pretty] [--log-requests all|warnings|errors|none]
                                                    run the backend (migrations first)
  svc migrate [--config FILE]                       apply pending database migrations
  svc purge [--config FILE]                         apply the retention rules once (for cron)
  svc spec [--config FILE]                          print the OpenAPI document
  svc token identity --sub ID [--idp NAME] [--ttl SECONDS] [--config FILE]
                                                    mint an identity token (needs identityToken.signingKey)
  svc keys KIND                                     print a fresh random key of that kind:
${keysUsage()}
  svc verify [--config FILE] [--key VERIFIER_KEY]   check the transparency log against the stored records

The config file: --config, else SVC_CONFIG, else ./svc.config.{ts,mts,mjs,js,json}.
With no config file and none of the option variables below, serve runs the demo (manifest,
/demo page) on the SQLite file ./svc.db, listening on 127.0.0.1 unless --host is given.
Environment (each option variable also as NAME_FILE, a file holding the value):
  SVC_DATABASE_URL     database.url (without a config file its scheme picks the dialect:
                       postgres://, mysql://, else a SQLite file path)
  SVC_DATABASE_READ_URL database.readUrl: a PostgreSQL or MySQL standby that exports, the
                       insight page and experiment summaries read from (they may lag)
  SVC_DATABASE_MAX_CONNECTIONS database.maxConnections: the most connections each PostgreSQL
                       or MySQL pool holds (10 by default)
  SVC_API_KEYS         apiKeys, separated by commas or white space
  SVC_SNAPSHOT_KEY     policySnapshot.signingKey      SVC_IDENTITY_KEY  identityToken.signingKey
  SVC_LOG_KEY          transparencyLog.signingKey     SVC_TRUSTED_ORIGINS  trustedOrigins (a list)
  PORT, SVC_LOG_FORMAT, SVC_LOG_REQUESTS (serve, when the flags are not given)`

/**
 * The options a command runs with: the config file (`--config`, else `SVC_CONFIG`, else
 * `./svc.config.*`) with what the environment's variables set replaced; without a file, the
 * built-in manifest when a variable sets an option, else the demo on `./svc.db`.
 */
const loadOptions = async (
  named: string | undefined
): Promise<{ options: SvcOptions; source: string; isDemo: boolean }> => {
  const environment = readEnvironment(process.env)
  const path = findConfigFile(process.cwd(), named ?? environment.configFile)
  const set = variablesSet(environment)
  const fromEnvironment = set.length === 0 ? "" : `; options from ${set.join(", ")}`
  if (path !== undefined) {
    return {
      options: optionsFromEnvironment(await loadConfig(path), environment),
      source: `${path}${fromEnvironment}`,
      isDemo: false
    }
  }
  if (set.length === 0) return { options: demoOptions("./svc.db"), source: "demo configuration", isDemo: true }
  return {
    options: optionsFromEnvironment(undefined, environment),
    source: `built-in manifest${fromEnvironment}`,
    isDemo: false
  }
}

const describeDatabase = (options: SvcOptions) =>
  "layer" in options.database
    ? "custom SqlClient layer"
    : `${options.database.dialect} ${redactUrl(options.database.url)}`

/** Never print a database password. */
const redactUrl = (url: string) => url.replace(/\/\/([^:/@]+):[^@]*@/, "//$1:***@")

/** `--port`, else `PORT`, else 3000; a bad value is reported under the name it came from. */
const portOf = (flag: string | undefined, env: string | undefined): number => {
  const [source, raw] = flag !== undefined
    ? ["--port", flag]
    : env !== undefined && env !== ""
    ? ["PORT", env]
    : [undefined, "3000"]
  const port = Number(raw)
  if (raw.trim() === "" || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw new UsageError(`${source === "PORT" ? `PORT=${raw}` : `--port ${raw}`}: not a port number (0 to 65535)`)
  }
  return port
}

/** How the bound address reads in the startup line: a wildcard says it is every interface. */
const describeBound = (bound: string) =>
  bound.startsWith("0.0.0.0:") ? "every IPv4 interface; " : bound.startsWith("[::]:") ? "every interface; " : ""

/** The command line: positionals and flags, each flag typed by its declaration. */
const parseCommandLine = () =>
  parseArgs({
    allowPositionals: true,
    options: {
      config: { type: "string", short: "c" },
      port: { type: "string", short: "p" },
      host: { type: "string" },
      sub: { type: "string" },
      idp: { type: "string" },
      ttl: { type: "string" },
      demo: { type: "boolean" },
      "log-format": { type: "string" },
      "log-requests": { type: "string" },
      dialect: { type: "string" },
      yes: { type: "boolean", short: "y" },
      force: { type: "boolean" },
      key: { type: "string" },
      name: { type: "string" },
      help: { type: "boolean", short: "h" }
    }
  })

type Values = ReturnType<typeof parseCommandLine>["values"]

const serve = async (values: Values) => {
  const loaded = await loadOptions(values.config)
  const { isDemo, source } = loaded
  const options = withLogFlags(loaded.options, values, process.env)
  const port = portOf(values.port, process.env.PORT)
  const plan = servePlan(isDemo, values)
  const demoPage = plan.demoPage && options.script?.enabled !== false
  const running = await startServer(options, { port, host: plan.host, demoPage })
  let stopping = false
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      // A second signal: the operator does not want to wait for the drain.
      console.error(`svc: second ${signal}, exiting without waiting for in-flight requests`)
      process.exit(1)
    }
    stopping = true
    console.log(`svc: ${signal} received, draining in-flight requests (send it again to exit at once)`)
    running.close().then(() => process.exit(0), (error: unknown) => {
      console.error("svc: shutdown failed", error)
      process.exit(1)
    })
  }
  // Handlers first: a supervisor may signal as soon as it reads the startup line.
  process.on("SIGTERM", stop)
  process.on("SIGINT", stop)
  const rules = options.manifest?.policyRules?.length ?? 0
  const base = `${running.url}${options.basePath?.replace(/\/+$/, "") ?? ""}`
  console.log(
    `svc listening on http://${running.bound} (${describeBound(running.bound)}${source}; ${
      describeDatabase(options)
    }; ${rules} policy rules; docs at ${base}/docs${demoPage ? `, demo at ${running.url}/demo` : ""})`
  )
}

const migrate = async (values: Values) => {
  const { options } = await loadOptions(values.config)
  const config = resolveOptions(options)
  const applied = await Effect.runPromise(
    Effect.provide(migrateDatabase(config.database), sqlClientLayer(config.database))
  ).catch((error: unknown) => {
    throw new Error(describeStartupFailure(error, options))
  })
  console.log(
    applied.length === 0
      ? "svc: database is up to date"
      : `svc: applied ${applied.map(([id, name]) => `${id}-${name}`).join(", ")}`
  )
}

const purge = async (values: Values) => {
  const { options } = await loadOptions(values.config)
  await purgeOnce(options) // logs its one line
}

const spec = async (values: Values) => {
  const { options } = await loadOptions(values.config)
  console.log(JSON.stringify(openApiDocument(resolveOptions(options)), null, 2))
}

const token = async (kind: string | undefined, values: Values) => {
  if (kind !== "identity") throw new UsageError("svc token: the only kind is `identity`")
  const sub = values.sub
  if (typeof sub !== "string" || sub === "") throw new UsageError("svc token identity: --sub ID is required")
  const { options } = await loadOptions(values.config)
  const config = resolveOptions(options)
  if (config.identityToken === undefined)
    throw new UsageError("svc token identity: the config has no identityToken.signingKey")
  const ttl = values.ttl === undefined ? 3600 : Number(values.ttl)
  if (!Number.isInteger(ttl) || ttl <= 0) throw new UsageError("--ttl: a positive number of seconds")
  console.log(
    await signIdentityToken(config.identityToken, {
      externalId: sub,
      identityProvider: values.idp
    }, ttl)
  )
}

const main = async () => {
  shareModulesWithConfigs()
  const { positionals, values } = parseCommandLine()
  const [command, sub] = positionals
  if (values.help === true || command === undefined) return console.log(usage)
  switch (command) {
    case "serve":
      return serve(values)
    case "migrate":
      return migrate(values)
    case "purge":
      return purge(values)
    case "spec":
      return spec(values)
    case "token":
      return token(sub, values)
    case "keys":
      return console.log(keys(sub, { name: values.name }))
    case "init": {
      const lines = await init(process.cwd(), {
        dialect: values.dialect,
        yes: values.yes === true,
        force: values.force === true
      })
      return console.log(lines.join("\n"))
    }
    case "verify":
      return loadOptions(values.config).then(({ options }) =>
        verifyCommand(options, { ...(values.key === undefined ? {} : { verifierKey: values.key }) })
      ).then((code) => process.exit(code))
    default:
      throw new UsageError(`unknown command: ${command}`)
  }
}

main().catch((error: unknown) => {
  if (error instanceof SvcConfigurationError) console.error(`svc: ${error.message}`)
  else if (error instanceof UsageError) console.error(`svc: ${error.message}\n\n${usage}`)
  else console.error("svc:", error instanceof Error ? error.message : String(error))
  process.exit(1)
})
