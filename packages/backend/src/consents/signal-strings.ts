import { GppModel } from "@iabgpp/cmpapi"
import { InvalidRequest } from "@svc/api"
import type { SaveConsentRequest } from "@svc/schema"
import { Either } from "effect"
import { propertyOf } from "../codec/guards.js"

/** A save's IAB strings as stored: the GPP string with its section ids, and the TCF v2 TC string. */
export interface SignalStrings {
  readonly gppString: string | null
  /** Comma-separated GPP section ids (`2,7`), as the string's header lists them. */
  readonly gppSectionIds: string | null
  readonly tcString: string | null
}

const clip = (text: string) => (text.length > 80 ? `${text.slice(0, 80)}…` : text)

/** The library's reason, without the (possibly long) string it repeats. */
const reasonOf = (error: unknown): string =>
  clip(String(propertyOf(error, "message") ?? error).replace(/'[^']{24,}'/g, "'…'"))

/**
 * Decodes `gppString` and `tcString` with the IAB's own library (`@iabgpp/cmpapi`); a string it
 * cannot decode is refused with INVALID_REQUEST naming the field and the reason. An empty GPP
 * string (no sections) is refused too: it records nothing.
 */
export const decodeSignalStrings = (body: SaveConsentRequest): Either.Either<SignalStrings, InvalidRequest> => {
  let gppSectionIds: string | null = null
  if (body.gppString !== undefined) {
    try {
      const model = new GppModel()
      model.decode(body.gppString)
      model.toObject()
      const ids: ReadonlyArray<unknown> = model.getSectionIds()
      if (ids.length === 0) throw new Error("it lists no section")
      gppSectionIds = ids.join(",")
    } catch (error) {
      return Either.left(
        new InvalidRequest({ message: `Invalid request: gppString: not a decodable GPP string (${reasonOf(error)})` })
      )
    }
  }
  if (body.tcString !== undefined) {
    try {
      const model = new GppModel()
      model.decodeSection("tcfeuv2", body.tcString)
      // Sections decode lazily: reading them is what proves the string decodes.
      model.toObject()
    } catch (error) {
      return Either.left(
        new InvalidRequest({
          message: `Invalid request: tcString: not a decodable TCF v2 TC string (${reasonOf(error)})`
        })
      )
    }
  }
  return Either.right({ gppString: body.gppString ?? null, gppSectionIds, tcString: body.tcString ?? null })
}

/** `"2,7"` → `[2, 7]`; anything unreadable → `undefined`. */
export const readSectionIds = (text: string | null): ReadonlyArray<number> | undefined => {
  if (text === null) return undefined
  const ids = text.split(",").map(Number)
  return ids.every((id) => Number.isInteger(id) && id > 0) ? ids : undefined
}
