/**
 * Every public export of the workspace packages carries JSDoc with an `@example`, and every
 * example type-checks against the packages as a user imports them. Run by `npm run typecheck`.
 *
 * Public exports are what each package's `exports` map reaches (its source entry points). An
 * example is the code of an `@example` tag (inside a ```ts fence or bare); each becomes a module of
 * its own under test-output/jsdoc-examples/ and all are checked in one program with the repo's
 * compiler options. Prints every export without an example and every example that does not
 * compile, and exits 1 if there is any. Arguments, when given, limit it to those packages
 * (`tsx scripts/jsdoc-examples.ts @svc/schema`).
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import ts from "typescript"

const root = resolve(import.meta.dirname, "..")
const outDir = join(root, "test-output", "jsdoc-examples")

interface Entry {
  readonly packageName: string
  readonly specifier: string
  readonly file: string
}

const sourceOf = (target: unknown): string | undefined => {
  if (typeof target === "string") return target.endsWith(".ts") ? target : undefined
  if (typeof target === "object" && target !== null && "@svc/source" in target) return sourceOf(target["@svc/source"])
  return undefined
}

/** The source entry points of every workspace package, from their `exports` maps. */
const entries = (): ReadonlyArray<Entry> => {
  const workspace: { workspaces: ReadonlyArray<string> } = JSON.parse(readFileSync(join(root, "package.json"), "utf8"))
  return workspace.workspaces.flatMap((folder) => {
    const manifest: { name: string; exports?: Record<string, unknown> } = JSON.parse(
      readFileSync(join(root, folder, "package.json"), "utf8")
    )
    return Object.entries(manifest.exports ?? {}).flatMap(([subpath, target]) => {
      const source = sourceOf(target)
      if (source === undefined) return []
      const specifier = subpath === "." ? manifest.name : `${manifest.name}/${subpath.slice(2)}`
      return [{ packageName: manifest.name, specifier, file: join(root, folder, source) }]
    })
  })
}

const compilerOptions = (): ts.CompilerOptions => {
  const parsed = ts.getParsedCommandLineOfConfigFile(join(root, "tsconfig.test.json"), {}, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"))
    }
  })
  if (parsed === undefined) throw new Error("tsconfig.test.json could not be read")
  // An example may name a value only to show it; unused names are not what this checks.
  return { ...parsed.options, noUnusedLocals: false, noUnusedParameters: false }
}

const exampleCode = (tag: ts.JSDocTagInfo): string => {
  const text = (tag.text ?? []).map((part) => part.text).join("")
  const fenced = /```(?:ts|typescript)?\n([\s\S]*?)```/.exec(text)
  return (fenced?.[1] ?? text).trim()
}

interface Example {
  readonly owner: string
  readonly file: string
}

const options = compilerOptions()
const only = process.argv.slice(2)
const all = entries().filter((entry) => only.length === 0 || only.includes(entry.packageName))
const program = ts.createProgram(all.map((entry) => entry.file), options)
const checker = program.getTypeChecker()
const problems: Array<string> = []
const examples: Array<Example> = []
/** Example files by lower-cased path: names that differ only in case must not share one. */
const taken = new Set<string>()

rmSync(outDir, { recursive: true, force: true })
for (const entry of all) {
  const source = program.getSourceFile(entry.file)
  const moduleSymbol = source === undefined ? undefined : checker.getSymbolAtLocation(source)
  if (moduleSymbol === undefined) {
    problems.push(`${entry.specifier}: ${relative(root, entry.file)} is not a module`)
    continue
  }
  for (const exported of checker.getExportsOfModule(moduleSymbol)) {
    const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported
    const owner = `${entry.specifier} ${exported.name}`
    const found = symbol.getJsDocTags(checker).filter((tag) => tag.name === "example").map(exampleCode)
    if (found.length === 0) {
      problems.push(`${owner}: no @example in its JSDoc`)
      continue
    }
    found.forEach((code, index) => {
      // `SvcInstance` and `svcInstance` would be one file on a case-insensitive file system, and
      // TypeScript refuses two names that differ only in case on any.
      let file = join(outDir, entry.specifier.replace(/[@/]/g, "_"), `${exported.name}.${index + 1}.ts`)
      while (taken.has(file.toLowerCase())) file = file.replace(/\.ts$/, "_.ts")
      taken.add(file.toLowerCase())
      mkdirSync(dirname(file), { recursive: true })
      writeFileSync(file, `${code}\n\nexport {}\n`)
      examples.push({ owner: `${owner} (@example ${index + 1})`, file })
    })
  }
}

if (examples.length > 0) {
  const exampleProgram = ts.createProgram(examples.map((example) => example.file), options)
  for (const example of examples) {
    const source = exampleProgram.getSourceFile(example.file)
    if (source === undefined) continue
    for (const diagnostic of ts.getPreEmitDiagnostics(exampleProgram, source)) {
      const line = diagnostic.start === undefined ? 0 : source.getLineAndCharacterOfPosition(diagnostic.start).line + 1
      const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, " ")
      problems.push(`${example.owner}, line ${line}: ${message}`)
    }
  }
}

for (const problem of problems) console.error(problem)
console.log(`JSDoc examples: ${examples.length} checked; ${problems.length} problem(s).`)
if (problems.length > 0) process.exit(1)
