// The `POST /subjects` body for one act of the visitor.
import type { Journey } from "./init-request.js"
import { CATEGORIES, type Action, type Category, type Preferences, type Surface } from "./types.js"

export interface SaveBody {
  type: "cookie_banner"
  domain: string
  subjectId: string
  givenAt: number
  preferences: Preferences
  receipts: Partial<Record<Category, { value: boolean; confirmedAt: number }>>
  vendorChoice?: { grants: Record<string, boolean>; confirmedAt: number }
  policySnapshotToken?: string
  journey?: Journey
  experiment?: { id: string; arm: string }
  action: Action
  surface: Surface
  timeToDecisionMs?: number
  externalSubjectId?: string
  identityProvider?: string
  identityToken?: string
  gppString?: string
}

export interface SaveInputs {
  domain: string
  subjectId: string
  givenAt: number
  preferences: Preferences
  /** Categories the visitor was asked about: each gets a receipt confirmed at `givenAt`. */
  offered: ReadonlyArray<Category>
  vendors: Record<string, boolean>
  policySnapshotToken: string | undefined
  journey: Journey | undefined
  experiment: { id: string; arm: string } | undefined
  action: Action
  surface: Surface
  shownAt: number | undefined
  identity: { externalId: string; identityProvider?: string; identityToken?: string } | undefined
  gppString?: string | undefined
}

export const buildSaveBody = (i: SaveInputs): SaveBody => {
  const receipts: SaveBody["receipts"] = {}
  for (const category of CATEGORIES) {
    if (i.offered.includes(category)) receipts[category] = { value: i.preferences[category], confirmedAt: i.givenAt }
  }
  const body: SaveBody = {
    type: "cookie_banner",
    domain: i.domain,
    subjectId: i.subjectId,
    givenAt: i.givenAt,
    preferences: { ...i.preferences, necessary: true },
    receipts,
    action: i.action,
    surface: i.surface
  }
  if (Object.keys(i.vendors).length > 0) body.vendorChoice = { grants: { ...i.vendors }, confirmedAt: i.givenAt }
  if (i.policySnapshotToken !== undefined) body.policySnapshotToken = i.policySnapshotToken
  if (i.journey !== undefined && (i.journey.id || i.journey.scope || i.journey.stored)) body.journey = i.journey
  if (i.experiment !== undefined) body.experiment = i.experiment
  if (i.shownAt !== undefined) {
    const ms = Math.round(i.givenAt - i.shownAt)
    if (ms >= 0 && ms <= 86_400_000) body.timeToDecisionMs = ms
  }
  if (i.identity !== undefined) {
    body.externalSubjectId = i.identity.externalId
    if (i.identity.identityProvider !== undefined) body.identityProvider = i.identity.identityProvider
    if (i.identity.identityToken !== undefined) body.identityToken = i.identity.identityToken
  }
  if (i.gppString !== undefined) body.gppString = i.gppString
  return body
}
