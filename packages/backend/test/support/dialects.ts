import type { SqlDialect } from "@svc/backend"
import mysql from "mysql2/promise"
import pg from "pg"
import { randomBytes } from "node:crypto"
import { optionalServers } from "./optional-servers.js"

/**
 * The engine matrix: SQLite always; Postgres and MySQL when their URL is set. A URL that is set
 * but unreachable fails the suite (CI sets both), it never skips it; the backend project's global
 * setup says which engines a run leaves out.
 */
export const dialects: ReadonlyArray<SqlDialect> = [
  "sqlite",
  ...(optionalServers.postgres.url !== undefined ? ["postgres" as const] : []),
  ...(optionalServers.mysql.url !== undefined ? ["mysql" as const] : [])
]

/** The engines that run as servers (not SQLite's file), with the servers they need. */
export const serverDialects = dialects.filter((d) => d !== "sqlite")
export const databaseServers = [optionalServers.postgres, optionalServers.mysql]

export interface FreshDatabase {
  readonly database: { readonly dialect: SqlDialect; readonly url: string; readonly schema?: string }
  /** Runs SQL directly against the fresh database (test assertions on stored rows). */
  readonly query: (text: string, params?: ReadonlyArray<unknown>) => Promise<Array<Record<string, unknown>>>
  readonly drop: () => Promise<void>
}

const uniqueName = () => `svc_t_${Date.now().toString(36)}_${randomBytes(4).toString("hex")}`

/**
 * A database no other suite uses: SQLite in a temporary file, a new Postgres schema (which also
 * exercises the `schema` option), or a new MySQL database.
 */
export const freshDatabase = async (dialect: SqlDialect): Promise<FreshDatabase> => {
  switch (dialect) {
    case "sqlite": {
      const { tmpdir } = await import("node:os")
      const { rm } = await import("node:fs/promises")
      const { default: Database } = await import("better-sqlite3")
      const file = `${tmpdir()}/${uniqueName()}.db`
      let db: InstanceType<typeof Database> | undefined
      return {
        database: { dialect, url: file },
        query: async (text, params = []) => {
          db ??= new Database(file)
          const statement = db.prepare(text)
          return statement.reader
            ? statement.all(...params) as Array<Record<string, unknown>>
            : (statement.run(...params), [])
        },
        drop: async () => {
          db?.close()
          await Promise.all(["", "-wal", "-shm", "-journal"].map((s) => rm(file + s, { force: true })))
        }
      }
    }
    case "postgres": {
      const url = optionalServers.postgres.url!
      const schema = uniqueName()
      const client = new pg.Client({ connectionString: url })
      await client.connect()
      await client.query(`SET search_path TO ${schema}`)
      return {
        database: { dialect, url, schema },
        query: async (text, params = []) => {
          let i = 0
          const result = await client.query(text.replace(/\?/g, () => `$${++i}`), params as Array<unknown>)
          return result.rows
        },
        drop: async () => {
          await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
          await client.end()
        }
      }
    }
    case "mysql": {
      const base = optionalServers.mysql.url!
      const name = uniqueName()
      const admin = await mysql.createConnection(base)
      await admin.query(`CREATE DATABASE ${name}`)
      const url = new URL(base)
      url.pathname = `/${name}`
      const conn = await mysql.createConnection(url.toString())
      return {
        database: { dialect, url: url.toString() },
        query: async (text, params = []) => {
          const [rows] = await conn.query(text, params as Array<unknown>)
          return Array.isArray(rows) ? rows as Array<Record<string, unknown>> : []
        },
        drop: async () => {
          await conn.end()
          await admin.query(`DROP DATABASE IF EXISTS ${name}`)
          await admin.end()
        }
      }
    }
  }
}
