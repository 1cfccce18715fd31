import { Either, Option, ParseResult, Schema, SchemaAST as AST } from "effect"

/**
 * A schema's encoder compiled once into plain functions, for the large answers (a subject's
 * records, lists): Effect's interpreting encoder allocates a result and an option bag per value
 * it walks, about 20 µs per consent record, and was the largest cost of a 200-record read.
 *
 * One source still: the functions are derived from the schema's AST, never written per shape.
 * They return exactly what `Schema.encodeSync(schema)` returns for every value that encodes
 * (`compiled-encoder.test.ts` proves it for every response schema of the contract with generated
 * values). Whatever they are not sure of goes to Effect's own encoder: a node kind, option or
 * union shape not compiled here is encoded by Effect for that subtree, and a value that does not
 * encode (a refinement refused, a type mismatch) is encoded again by `Schema.encodeSync`, which
 * raises the usual `ParseError`.
 */

/** A compiled encoder: the encoded value, or `MISS` when the value does not encode. */
type Encode = (value: unknown) => unknown
type Guard = (value: unknown) => boolean

const MISS: unique symbol = Symbol("svc/compiled-encoder/miss")

/** Options that change what an encoder does; only the default and `onExcessProperty: "error"` are compiled. */
interface Mode {
  readonly excessIsError: boolean
}

const defaultMode: Mode = { excessIsError: false }

/** The options an AST node's `parseOptions` annotation sets for its subtree, or `undefined` when not compiled. */
const modeOf = (ast: AST.AST, inherited: Mode): Mode | undefined => {
  const annotation = AST.getParseOptionsAnnotation(ast)
  if (Option.isNone(annotation)) return inherited
  const { errors: _errors, ...rest } = annotation.value
  const keys = Object.keys(rest)
  if (keys.some((key) => key !== "onExcessProperty")) return undefined
  if (rest.onExcessProperty === "preserve") return undefined
  return { excessIsError: rest.onExcessProperty === "error" }
}

/** The answer of an Effect parser that ran synchronously, or `MISS`; a parser that suspends is not compiled. */
const rightOrMiss = (result: unknown): unknown => {
  if (!Either.isEither(result)) throw unsupported
  return Either.isRight(result) ? result.right : MISS
}

class Unsupported extends Error {}
const unsupported = new Unsupported("not compiled")

/** Effect's own encoder for a subtree this module does not compile. */
const effectEncode = (ast: AST.AST, mode: Mode): Encode => {
  const encode = ParseResult.encodeUnknownEither(Schema.make(ast), {
    onExcessProperty: mode.excessIsError ? "error" : "ignore"
  })
  return (value) => {
    const result = encode(value)
    return Either.isRight(result) ? result.right : MISS
  }
}

const effectGuard = (ast: AST.AST, mode: Mode): Guard => {
  const is = ParseResult.is(Schema.make(ast), { onExcessProperty: mode.excessIsError ? "error" : "ignore" })
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

/** The AST without its transformations and refinements: what a union member is, for choosing one. */
const shapeOf = (ast: AST.AST): AST.AST => {
  const type = AST.typeAST(ast)
  return type._tag === "Refinement" ? shapeOf(type.from) : type
}

/**
 * A union whose members can be told apart by their guards in declared order: at most one
 * member is an object (struct, array, declared class, or anything not compiled). Effect tries
 * struct members keyed by a literal property before the others; with one object member at
 * most, the order cannot change which member answers.
 */
const isSimpleUnion = (ast: AST.Union): boolean =>
  ast.types.filter((member) => {
    const shape = shapeOf(member)
    switch (shape._tag) {
      case "Literal":
      case "StringKeyword":
      case "NumberKeyword":
      case "BooleanKeyword":
      case "UndefinedKeyword":
      case "Enums":
        return false
      default:
        return true
    }
  }).length <= 1

const guardMemo = new Map<string, WeakMap<AST.AST, Guard>>()
const encodeMemo = new Map<string, WeakMap<AST.AST, Encode>>()

const memo = <F>(table: Map<string, WeakMap<AST.AST, F>>, ast: AST.AST, mode: Mode, make: () => F): F => {
  const key = mode.excessIsError ? "error" : "ignore"
  let byAst = table.get(key)
  if (byAst === undefined) {
    byAst = new WeakMap()
    table.set(key, byAst)
  }
  const found = byAst.get(ast)
  if (found !== undefined) return found
  // Recursive schemas (`Suspend`) reach a node again while it is being compiled: the lazy
  // indirection answers those calls once the node is done.
  const box: { compiled?: F } = {}
  const lazy = ((value: unknown) => (box.compiled as (value: unknown) => unknown)(value)) as F
  byAst.set(ast, lazy)
  box.compiled = make()
  byAst.set(ast, box.compiled)
  return box.compiled
}

/** A type-side check: true when `value` is of the (type side of the) schema, as `Schema.is` answers. */
const guard = (ast: AST.AST, inherited: Mode): Guard => {
  const mode = modeOf(ast, inherited)
  if (mode === undefined) return effectGuard(ast, inherited)
  return memo(guardMemo, ast, mode, () => makeGuard(ast, mode))
}

const makeGuard = (ast: AST.AST, mode: Mode): Guard => {
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
    case "UndefinedKeyword":
      return (value) => value === undefined
    case "UnknownKeyword":
    case "AnyKeyword":
      return () => true
    case "Enums": {
      const values = ast.enums.map(([, value]) => value)
      return (value) => values.includes(value as string | number)
    }
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
      return makeTypeLiteral(ast, mode, guard)?.guard ?? effectGuard(ast, mode)
    case "TupleType":
      return makeArray(ast, mode, guard)?.guard ?? effectGuard(ast, mode)
    default:
      return effectGuard(ast, mode)
  }
}

/** The encoder: the encoded value of `value`, or `MISS`. */
const encoder = (ast: AST.AST, inherited: Mode): Encode => {
  const mode = modeOf(ast, inherited)
  if (mode === undefined) return effectEncode(ast, inherited)
  return memo(encodeMemo, ast, mode, () => makeEncoder(ast, mode))
}

const makeEncoder = (ast: AST.AST, mode: Mode): Encode => {
  switch (ast._tag) {
    case "Literal":
    case "StringKeyword":
    case "NumberKeyword":
    case "BooleanKeyword":
    case "UndefinedKeyword":
    case "UnknownKeyword":
    case "AnyKeyword":
    case "Enums": {
      const is = guard(ast, mode)
      return (value) => is(value) ? value : MISS
    }
    case "Declaration": {
      const encode = ast.encodeUnknown(...ast.typeParameters)
      return (value) => rightOrMiss(encode(value, AST.defaultParseOption, ast))
    }
    case "Refinement": {
      // As Effect: the value must be of the whole type side (every refinement), then the
      // refined schema encodes it.
      const is = guard(AST.typeAST(ast), mode)
      const from = encoder(ast.from, mode)
      return (value) => is(value) ? from(value) : MISS
    }
    case "Transformation": {
      const transformation = ast.transformation
      const to = encoder(ast.to, mode)
      const from = encoder(ast.from, mode)
      switch (transformation._tag) {
        case "FinalTransformation":
          return (value) => {
            const typed = to(value)
            if (typed === MISS) return MISS
            const encoded = rightOrMiss(transformation.encode(typed, AST.defaultParseOption, ast, value))
            return encoded === MISS ? MISS : from(encoded)
          }
        case "ComposeTransformation":
          return (value) => {
            const typed = to(value)
            return typed === MISS ? MISS : from(typed)
          }
        default:
          return effectEncode(ast, mode)
      }
    }
    case "Union": {
      if (!isSimpleUnion(ast)) return effectEncode(ast, mode)
      const members = ast.types.map((member) => ({ is: guard(member, mode), encode: encoder(member, mode) }))
      return (value) => {
        for (const member of members) {
          if (!member.is(value)) continue
          const encoded = member.encode(value)
          if (encoded !== MISS) return encoded
        }
        return MISS
      }
    }
    case "TypeLiteral":
      return makeTypeLiteral(ast, mode, encoder)?.encode ?? effectEncode(ast, mode)
    case "TupleType":
      return makeArray(ast, mode, encoder)?.encode ?? effectEncode(ast, mode)
    default:
      return effectEncode(ast, mode)
  }
}

/**
 * A struct or record, both as a guard and as an encoder (`child` picks which). Mirrors Effect's
 * order: the property signatures in declared order, then index-signature keys not declared;
 * keys no signature names are dropped, or refused under `onExcessProperty: "error"`.
 */
const makeTypeLiteral = <F extends Encode | Guard>(
  ast: AST.TypeLiteral,
  mode: Mode,
  child: (ast: AST.AST, mode: Mode) => F
): { guard: Guard; encode: Encode } | undefined => {
  const properties = ast.propertySignatures.map((ps) => ({
    name: ps.name,
    isOptional: ps.isOptional,
    value: child(ps.type, mode)
  }))
  const indexes: Array<{ keys: (value: object) => ReadonlyArray<PropertyKey>; key: Guard; value: F }> = []
  for (const signature of ast.indexSignatures) {
    const keys = indexKeysOf(signature.parameter)
    if (keys === undefined) return undefined
    indexes.push({ keys, key: guard(signature.parameter, mode), value: child(signature.type, mode) })
  }
  const declared = new Set<PropertyKey>(properties.map((p) => p.name))
  const isExpected = (key: PropertyKey): boolean =>
    declared.has(key) || indexes.some((index) => typeof key !== "number" && index.key(key))

  const excessRefused = (value: Record<PropertyKey, unknown>): boolean =>
    mode.excessIsError && Reflect.ownKeys(value).some((key) => !isExpected(key))

  const encode: Encode = (value) => {
    if (!isRecord(value) || excessRefused(value)) return MISS
    const output: Record<PropertyKey, unknown> = {}
    for (const property of properties) {
      const present = hasOwn(value, property.name)
      if (!present && property.isOptional) continue
      const encoded = (property.value as Encode)(value[property.name])
      if (encoded === MISS) return MISS
      output[property.name] = encoded
    }
    for (const index of indexes) {
      for (const key of index.keys(value)) {
        if (!index.key(key)) continue
        const encoded = (index.value as Encode)(value[key])
        if (encoded === MISS) return MISS
        if (!declared.has(key)) output[key] = encoded
      }
    }
    return output
  }

  const check: Guard = (value) => {
    if (!isRecord(value) || excessRefused(value)) return false
    for (const property of properties) {
      const present = hasOwn(value, property.name)
      if (!present && property.isOptional) continue
      if (!(property.value as Guard)(value[property.name])) return false
    }
    for (const index of indexes) {
      for (const key of index.keys(value)) {
        if (index.key(key) && !(index.value as Guard)(value[key])) return false
      }
    }
    return true
  }
  return { guard: check, encode }
}

/** `Schema.Array(item)` (a tuple with one rest element and no fixed ones); other tuples are left to Effect. */
const makeArray = <F extends Encode | Guard>(
  ast: AST.TupleType,
  mode: Mode,
  child: (ast: AST.AST, mode: Mode) => F
): { guard: Guard; encode: Encode } | undefined => {
  if (ast.elements.length > 0 || ast.rest.length !== 1) return undefined
  const [rest] = ast.rest
  if (rest === undefined) return undefined
  const item = child(rest.type, mode)
  return {
    guard: (value) => Array.isArray(value) && value.every((element) => (item as Guard)(element)),
    encode: (value) => {
      if (!Array.isArray(value)) return MISS
      const output = new Array<unknown>(value.length)
      for (let i = 0; i < value.length; i++) {
        const encoded = (item as Encode)(value[i])
        if (encoded === MISS) return MISS
        output[i] = encoded
      }
      return output
    }
  }
}

/**
 * The compiled encoder of `schema`: the same value as `Schema.encodeSync(schema)`, faster. A
 * value that does not encode throws the `ParseError` Effect's encoder throws for it.
 */
export const compileEncoder = <A, I>(schema: Schema.Schema<A, I, never>): (value: A) => I => {
  const compiled = encoder(schema.ast, defaultMode)
  const reference = Schema.encodeSync(schema)
  return (value) => {
    try {
      const encoded = compiled(value)
      if (encoded !== MISS) return encoded as I
    } catch (error) {
      if (!(error instanceof Unsupported)) throw error
    }
    return reference(value)
  }
}
