import { Either, Option, ParseResult, Schema, SchemaAST as AST } from "effect"
import { isoDateString } from "./iso-date.js"

/**
 * A schema's encoder or decoder compiled once into plain functions, for the hot and large paths
 * (a subject's records read from the database and answered): Effect's interpreting parser
 * allocates a result and an option bag per value it walks, about 20 µs per consent record each
 * way, which was the largest cost of a 200-record read.
 *
 * One source still: the functions are derived from the schema's AST, never written per shape,
 * and they call the schema's own filters, declarations and transformations. They return exactly
 * what `Schema.encodeSync` / `Schema.decodeUnknownSync` return for every value those accept
 * (`compiled-codec.test.ts` proves it for the contract's response schemas and the row schemas
 * with generated values). Whatever they are not sure of goes to Effect: a node kind, parse option
 * or union shape not compiled here is parsed by Effect for that subtree, and a value that does not
 * parse is parsed again by Effect's own function, which throws the usual `ParseError`.
 */

/** A compiled parser: the parsed value, or `MISS` when the value does not parse. */
type Parse = (value: unknown) => unknown
type Guard = (value: unknown) => boolean

const MISS: unique symbol = Symbol("svc/compiled-codec/miss")

/** The direction and the options that change what a parser does; only `onExcessProperty` is compiled. */
interface Mode {
  readonly decoding: boolean
  readonly excessIsError: boolean
}

/** The options an AST node's `parseOptions` annotation sets for its subtree, or `undefined` when not compiled. */
const modeOf = (ast: AST.AST, inherited: Mode): Mode | undefined => {
  if (inherited.decoding && Option.isSome(AST.getDecodingFallbackAnnotation(ast))) return undefined
  const annotation = AST.getParseOptionsAnnotation(ast)
  if (Option.isNone(annotation)) return inherited
  const { errors: _errors, ...rest } = annotation.value
  if (Object.keys(rest).some((key) => key !== "onExcessProperty")) return undefined
  if (rest.onExcessProperty === "preserve") return undefined
  return { decoding: inherited.decoding, excessIsError: rest.onExcessProperty === "error" }
}

class Unsupported extends Error {}
const unsupported = new Unsupported("not compiled")

/** The answer of an Effect parser that ran synchronously, or `MISS`; a parser that suspends is not compiled. */
const rightOrMiss = (result: unknown): unknown => {
  if (!Either.isEither(result)) throw unsupported
  return Either.isRight(result) ? result.right : MISS
}

const effectOptions = (mode: Mode): AST.ParseOptions => ({
  onExcessProperty: mode.excessIsError ? "error" : "ignore"
})

/** Effect's own parser for a subtree this module does not compile. */
const effectParse = (ast: AST.AST, mode: Mode): Parse => {
  const schema = Schema.make(ast)
  const parse = mode.decoding
    ? ParseResult.decodeUnknownEither(schema, effectOptions(mode))
    : ParseResult.encodeUnknownEither(schema, effectOptions(mode))
  return (value) => {
    const result = parse(value)
    return Either.isRight(result) ? result.right : MISS
  }
}

const effectGuard = (ast: AST.AST, mode: Mode): Guard => {
  const is = ParseResult.is(Schema.make(ast), effectOptions(mode))
  return (value) => is(value)
}

const isRecord = (value: unknown): value is Record<PropertyKey, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const hasOwn = (value: object, key: PropertyKey): boolean => Object.prototype.hasOwnProperty.call(value, key)

/** The keys an index signature ranges over (Effect's rule: string keys for strings and templates, symbols for symbols). */
const indexKeysOf = (parameter: AST.AST): ((value: object) => ReadonlyArray<PropertyKey>) | undefined => {
  switch (parameter._tag) {
    case "StringKeyword":
    case "TemplateLiteral":
      return Object.keys
    case "SymbolKeyword":
      return Object.getOwnPropertySymbols
    case "Refinement":
      return indexKeysOf(parameter.from)
    default:
      return undefined
  }
}

/** What a union member is on the side being parsed, without refinements: for telling members apart. */
const shapeOf = (ast: AST.AST, decoding: boolean): AST.AST => {
  const side = decoding ? AST.encodedAST(ast) : AST.typeAST(ast)
  return side._tag === "Refinement" ? shapeOf(side.from, decoding) : side
}

/**
 * A union whose members can be tried in declared order: at most one member is an object on the
 * side being parsed (struct, array, declared class, or anything not compiled). Effect tries
 * struct members keyed by a literal property before the others; with one object member at most,
 * the order cannot change which member answers.
 */
const isSimpleUnion = (ast: AST.Union, decoding: boolean): boolean =>
  ast.types.filter((member) => {
    switch (shapeOf(member, decoding)._tag) {
      case "Literal":
      case "StringKeyword":
      case "NumberKeyword":
      case "BooleanKeyword":
      case "BigIntKeyword":
      case "UndefinedKeyword":
      case "Enums":
        return false
      default:
        return true
    }
  }).length <= 1

/** Compiled functions of one kind, per mode and AST node; `defer` wraps a getter as that kind. */
interface MemoTable<F> {
  readonly byMode: Map<string, WeakMap<AST.AST, F>>
  readonly defer: (get: () => F) => F
}

const parsers: MemoTable<Parse> = { byMode: new Map(), defer: (get) => (value) => get()(value) }
const guards: MemoTable<Guard> = { byMode: new Map(), defer: (get) => (value) => get()(value) }

const memo = <F>(table: MemoTable<F>, ast: AST.AST, mode: Mode, make: () => F): F => {
  const key = `${mode.decoding}:${mode.excessIsError}`
  let byAst = table.byMode.get(key)
  if (byAst === undefined) {
    byAst = new WeakMap()
    table.byMode.set(key, byAst)
  }
  const found = byAst.get(ast)
  if (found !== undefined) return found
  // Recursive schemas reach a node again while it is being compiled: the indirection answers
  // those calls once the node is done.
  const box: { compiled?: F } = {}
  byAst.set(
    ast,
    table.defer(() => {
      if (box.compiled === undefined) throw unsupported
      return box.compiled
    })
  )
  box.compiled = make()
  byAst.set(ast, box.compiled)
  return box.compiled
}

/** A type-side check: true when `value` is of the schema's type, as `Schema.is` answers. */
const guard = (ast: AST.AST, inherited: Mode): Guard => {
  const mode = modeOf(ast, inherited)
  if (mode === undefined) return effectGuard(ast, inherited)
  return memo(guards, ast, mode, () => makeGuard(ast, mode))
}

const primitiveGuard = (ast: AST.AST): Guard | undefined => {
  switch (ast._tag) {
    case "Literal": {
      const literal = ast.literal
      return (value) => value === literal
    }
    case "StringKeyword":
      return (value) => typeof value === "string"
    case "NumberKeyword":
      return (value) => typeof value === "number"
    case "BooleanKeyword":
      return (value) => typeof value === "boolean"
    case "BigIntKeyword":
      return (value) => typeof value === "bigint"
    case "UndefinedKeyword":
      return (value) => value === undefined
    case "UnknownKeyword":
    case "AnyKeyword":
      return () => true
    case "Enums": {
      const values: ReadonlyArray<unknown> = ast.enums.map(([, value]) => value)
      return (value) => values.includes(value)
    }
    default:
      return undefined
  }
}

const makeGuard = (ast: AST.AST, mode: Mode): Guard => {
  const primitive = primitiveGuard(ast)
  if (primitive !== undefined) return primitive
  switch (ast._tag) {
    case "Declaration": {
      const decode = ast.decodeUnknown(...ast.typeParameters)
      return (value) => rightOrMiss(decode(value, AST.defaultParseOption, ast)) !== MISS
    }
    case "Refinement": {
      const from = guard(ast.from, mode)
      return (value) => from(value) && Option.isNone(ast.filter(value, AST.defaultParseOption, ast))
    }
    case "Transformation":
      return guard(ast.to, mode)
    case "Union": {
      const members = ast.types.map((member) => guard(member, mode))
      return (value) => members.some((member) => member(value))
    }
    case "TypeLiteral":
      return typeLiteralGuard(ast, mode) ?? effectGuard(ast, mode)
    case "TupleType":
      return arrayGuard(ast, mode) ?? effectGuard(ast, mode)
    default:
      return effectGuard(ast, mode)
  }
}

/** The parser of `ast` in `inherited`'s direction: the parsed value, or `MISS`. */
const parser = (ast: AST.AST, inherited: Mode): Parse => {
  const mode = modeOf(ast, inherited)
  if (mode === undefined) return effectParse(ast, inherited)
  return memo(parsers, ast, mode, () => makeParser(ast, mode))
}

const makeParser = (ast: AST.AST, mode: Mode): Parse => {
  const primitive = primitiveGuard(ast)
  if (primitive !== undefined) return (value) => primitive(value) ? value : MISS
  switch (ast._tag) {
    case "Declaration": {
      const parse = mode.decoding
        ? ast.decodeUnknown(...ast.typeParameters)
        : ast.encodeUnknown(...ast.typeParameters)
      return (value) => rightOrMiss(parse(value, AST.defaultParseOption, ast))
    }
    case "Refinement": {
      if (mode.decoding) {
        const from = parser(ast.from, mode)
        return (value) => {
          const decoded = from(value)
          return decoded !== MISS && Option.isNone(ast.filter(decoded, AST.defaultParseOption, ast)) ? decoded : MISS
        }
      }
      // As Effect: the value must be of the whole type side (every refinement), then the
      // refined schema encodes it.
      const is = guard(AST.typeAST(ast), mode)
      const from = parser(ast.from, mode)
      return (value) => is(value) ? from(value) : MISS
    }
    case "Transformation":
      return transformation(ast, mode)
    case "Union": {
      if (!isSimpleUnion(ast, mode.decoding)) return effectParse(ast, mode)
      const members = ast.types.map((member) => parser(member, mode))
      return (value) => {
        for (const member of members) {
          const parsed = member(value)
          if (parsed !== MISS) return parsed
        }
        return MISS
      }
    }
    case "TypeLiteral":
      return typeLiteralParser(ast, mode) ?? effectParse(ast, mode)
    case "TupleType":
      return arrayParser(ast, mode) ?? effectParse(ast, mode)
    default:
      return effectParse(ast, mode)
  }
}

/** `Schema.DateFromString`'s transformation (`Schema.Date` and svc's `Timestamp` refine it). */
const dateFromString = AST.isTransformation(Schema.DateFromString.ast)
  ? Schema.DateFromString.ast.transformation
  : undefined

const transformation = (ast: AST.Transformation, mode: Mode): Parse => {
  const parse = transformationParser(ast, mode)
  if (mode.decoding || dateFromString === undefined || ast.transformation !== dateFromString) return parse
  // Encoding a Date (`DateFromSelf`) writes its `toISOString` text: written here for the years
  // 0000 to 9999 (iso-date.ts), by the transformation itself for other times and invalid dates.
  return (value) => value instanceof Date ? isoDateString(value.getTime()) ?? parse(value) : MISS
}

/** Decoding runs from → transformation → to; encoding the other way round. */
const transformationParser = (ast: AST.Transformation, mode: Mode): Parse => {
  const first = parser(mode.decoding ? ast.from : ast.to, mode)
  const last = parser(mode.decoding ? ast.to : ast.from, mode)
  const kind = ast.transformation
  switch (kind._tag) {
    case "FinalTransformation": {
      const transform = mode.decoding ? kind.decode : kind.encode
      return (value) => {
        const input = first(value)
        if (input === MISS) return MISS
        const output = rightOrMiss(transform(input, AST.defaultParseOption, ast, value))
        return output === MISS ? MISS : last(output)
      }
    }
    case "ComposeTransformation":
      return (value) => {
        const input = first(value)
        return input === MISS ? MISS : last(input)
      }
    default:
      return effectParse(ast, mode)
  }
}

/**
 * A struct's or record's members compiled by `child` (as parsers or as guards). Effect's order:
 * the property signatures in declared order, then the index-signature keys not declared; keys no
 * signature names are dropped, or refused under `onExcessProperty: "error"`.
 */
interface TypeLiteralPlan<F> {
  readonly properties: ReadonlyArray<{ readonly name: PropertyKey; readonly isOptional: boolean; readonly member: F }>
  readonly indexes: ReadonlyArray<{
    readonly keys: (value: object) => ReadonlyArray<PropertyKey>
    readonly key: Guard
    readonly member: F
  }>
  readonly declared: ReadonlySet<PropertyKey>
  readonly excessRefused: (value: Record<PropertyKey, unknown>) => boolean
}

const typeLiteralPlan = <F>(
  ast: AST.TypeLiteral,
  mode: Mode,
  child: (ast: AST.AST, mode: Mode) => F
): TypeLiteralPlan<F> | undefined => {
  const properties = ast.propertySignatures.map((ps) => ({
    name: ps.name,
    isOptional: ps.isOptional,
    member: child(ps.type, mode)
  }))
  const indexes: Array<{ keys: (value: object) => ReadonlyArray<PropertyKey>; key: Guard; member: F }> = []
  for (const signature of ast.indexSignatures) {
    const keys = indexKeysOf(signature.parameter)
    if (keys === undefined) return undefined
    indexes.push({ keys, key: guard(signature.parameter, mode), member: child(signature.type, mode) })
  }
  const declared = new Set<PropertyKey>(properties.map((p) => p.name))
  const isExpected = (key: PropertyKey): boolean => declared.has(key) || indexes.some((index) => index.key(key))
  const excessRefused = (value: Record<PropertyKey, unknown>): boolean =>
    mode.excessIsError && Reflect.ownKeys(value).some((key) => !isExpected(key))
  return { properties, indexes, declared, excessRefused }
}

const typeLiteralParser = (ast: AST.TypeLiteral, mode: Mode): Parse | undefined => {
  const plan = typeLiteralPlan(ast, mode, parser)
  if (plan === undefined) return undefined
  const { declared, excessRefused, indexes, properties } = plan
  return (value) => {
    if (!isRecord(value) || excessRefused(value)) return MISS
    const output: Record<PropertyKey, unknown> = {}
    for (const property of properties) {
      if (property.isOptional && !hasOwn(value, property.name)) continue
      const parsed = property.member(value[property.name])
      if (parsed === MISS) return MISS
      output[property.name] = parsed
    }
    for (const index of indexes) {
      for (const key of index.keys(value)) {
        if (!index.key(key)) continue
        const parsed = index.member(value[key])
        if (parsed === MISS) return MISS
        if (!declared.has(key)) output[key] = parsed
      }
    }
    return output
  }
}

const typeLiteralGuard = (ast: AST.TypeLiteral, mode: Mode): Guard | undefined => {
  const plan = typeLiteralPlan(ast, mode, guard)
  if (plan === undefined) return undefined
  const { excessRefused, indexes, properties } = plan
  return (value) => {
    if (!isRecord(value) || excessRefused(value)) return false
    for (const property of properties) {
      if (property.isOptional && !hasOwn(value, property.name)) continue
      if (!property.member(value[property.name])) return false
    }
    for (const index of indexes) {
      for (const key of index.keys(value)) {
        if (index.key(key) && !index.member(value[key])) return false
      }
    }
    return true
  }
}

/** The item of `Schema.Array(item)` (a tuple with one rest element and no fixed ones); other tuples are left to Effect. */
const arrayItem = (ast: AST.TupleType): AST.AST | undefined => {
  const [rest, ...more] = ast.rest
  return ast.elements.length > 0 || rest === undefined || more.length > 0 ? undefined : rest.type
}

const arrayParser = (ast: AST.TupleType, mode: Mode): Parse | undefined => {
  const item = arrayItem(ast)
  if (item === undefined) return undefined
  const parse = parser(item, mode)
  return (value) => {
    if (!Array.isArray(value)) return MISS
    const output = new Array<unknown>(value.length)
    for (let i = 0; i < value.length; i++) {
      const parsed = parse(value[i])
      if (parsed === MISS) return MISS
      output[i] = parsed
    }
    return output
  }
}

const arrayGuard = (ast: AST.TupleType, mode: Mode): Guard | undefined => {
  const item = arrayItem(ast)
  if (item === undefined) return undefined
  const check = guard(item, mode)
  return (value) => Array.isArray(value) && value.every((element) => check(element))
}

const compile = <In, Out>(ast: AST.AST, decoding: boolean, reference: (value: In) => Out): (value: In) => Out => {
  const compiled = parser(ast, { decoding, excessIsError: false })
  return (value) => {
    try {
      const parsed = compiled(value)
      // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- compiled from the untyped AST of the schema `reference` parses: the same value, as compiled-codec.test.ts proves
      if (parsed !== MISS) return parsed as Out
    } catch (error) {
      if (!(error instanceof Unsupported)) throw error
    }
    return reference(value)
  }
}

/**
 * The compiled encoder of `schema`: the same value as `Schema.encodeSync(schema)`, faster. A
 * value that does not encode throws the `ParseError` Effect's encoder throws for it.
 */
export const compileEncoder = <A, I>(schema: Schema.Schema<A, I, never>): (value: A) => I =>
  compile(schema.ast, false, Schema.encodeSync(schema))

/**
 * The compiled decoder of `schema`: the same value as `Schema.decodeUnknownSync(schema)`, faster.
 * A value that does not decode throws the `ParseError` Effect's decoder throws for it.
 */
export const compileDecoder = <A, I>(schema: Schema.Schema<A, I, never>): (value: unknown) => A =>
  compile(schema.ast, true, Schema.decodeUnknownSync(schema))

/**
 * A struct's decoder for rows read as arrays of column values (`sql\`…\`.values`), column `i`
 * named `columns[i]`, or `undefined` when `ast` is not a struct of declared keys only. A column
 * the struct does not declare is passed over, a declared one the row lacks is a missing key.
 */
const rowParser = (ast: AST.AST, columns: ReadonlyArray<string>): Parse | undefined => {
  const mode = modeOf(ast, { decoding: true, excessIsError: false })
  if (mode === undefined || ast._tag !== "TypeLiteral") return undefined
  const plan = typeLiteralPlan(ast, mode, parser)
  if (plan === undefined || plan.indexes.length > 0) return undefined
  // Under `onExcessProperty: "error"` a column the struct does not declare refuses every row.
  if (mode.excessIsError && columns.some((column) => !plan.declared.has(column))) return undefined
  const properties = plan.properties.map((property) => ({
    ...property,
    position: typeof property.name === "string" ? columns.lastIndexOf(property.name) : -1
  }))
  return (row) => {
    if (!Array.isArray(row)) return MISS
    const output: Record<PropertyKey, unknown> = {}
    for (const property of properties) {
      if (property.isOptional && property.position === -1) continue
      const parsed = property.member(property.position === -1 ? undefined : row[property.position])
      if (parsed === MISS) return MISS
      output[property.name] = parsed
    }
    return output
  }
}

/**
 * The compiled decoder of a struct `schema` for rows a driver returns as arrays (`sql\`…\`.values`),
 * column `i` named `columns[i]`: the same value as `Schema.decodeUnknownSync(schema)` of the row
 * as an object of those names, without that object being made (a driver makes an object per row
 * at about twice the cost of an array). A row that does not decode throws Effect's `ParseError`.
 */
export const compileRowDecoder = <A, I>(
  schema: Schema.Schema<A, I, never>,
  columns: ReadonlyArray<string>
): (row: ReadonlyArray<unknown>) => A => {
  const decode = Schema.decodeUnknownSync(schema)
  const reference = (row: ReadonlyArray<unknown>): A => decode(Object.fromEntries(columns.map((c, i) => [c, row[i]])))
  const compiled = rowParser(schema.ast, columns)
  if (compiled === undefined) return reference
  return (row) => {
    try {
      const parsed = compiled(row)
      // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- compiled from the untyped AST of the schema `reference` decodes: the same value, as compiled-codec.test.ts proves
      if (parsed !== MISS) return parsed as A
    } catch (error) {
      if (!(error instanceof Unsupported)) throw error
    }
    return reference(row)
  }
}
