import { Migrator, SqlClient } from "@effect/sql"
import { Effect } from "effect"
import subjects from "./1-subjects.js"
import consents from "./2-consents.js"
import legalDocuments from "./3-legal-documents.js"
import vendorChoice from "./4-vendor-choice.js"
import experimentSummaryIndex from "./5-experiment-summary-index.js"
import legalRevision from "./6-legal-revision.js"
import legalRevisionUnique from "./7-legal-revision-unique.js"
import mysqlBinaryCollation from "./8-mysql-binary-collation.js"

/** Numbered migrations, one change each; a new one gets the next number and never edits an old one. */
export const migrations: ReadonlyArray<readonly [id: number, name: string, run: Effect.Effect<void, unknown, SqlClient.SqlClient>]> = [
  [1, "subjects", subjects],
  [2, "consents", consents],
  [3, "legal-documents", legalDocuments],
  [4, "vendor-choice", vendorChoice],
  [5, "experiment-summary-index", experimentSummaryIndex],
  [6, "legal-revision", legalRevision],
  [7, "legal-revision-unique", legalRevisionUnique],
  [8, "mysql-binary-collation", mysqlBinaryCollation]
]

const runMigrator = Migrator.make({})

/** Applies every pending migration; returns the ones it applied as `[id, name]`. */
export const runMigrations = runMigrator({
  loader: Effect.succeed(migrations.map(([id, name, run]) => [id, name, Effect.succeed(run)] as const)),
  table: "svc_migrations"
})
