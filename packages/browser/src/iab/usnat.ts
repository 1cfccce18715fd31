// The IAB GPP string with one section, US National (`usnat`, id 7, version 2): the core segment and
// the GPC segment. Only what an opt-out banner knows is set; the rest is 0 (not applicable).
import { BitWriter } from "./bit-writer.js"

export const USNAT_ID = 7
export const USNAT_VERSION = 2

/** The section's fields by their GPP names, as `getSection('usnat')` answers them. */
export interface UsnatFields {
  Version: number
  SharingNotice: number
  SaleOptOutNotice: number
  SharingOptOutNotice: number
  TargetedAdvertisingOptOutNotice: number
  SensitiveDataProcessingOptOutNotice: number
  SensitiveDataLimitUseNotice: number
  SaleOptOut: number
  SharingOptOut: number
  TargetedAdvertisingOptOut: number
  SensitiveDataProcessing: Array<number>
  KnownChildSensitiveDataConsents: Array<number>
  PersonalDataConsents: number
  MspaCoveredTransaction: number
  MspaOptOutOptionMode: number
  MspaServiceProviderMode: number
  GpcSegmentType: number
  Gpc: boolean
}

/**
 * The visitor's state as usnat fields. svc's opt-out covers sale, sharing and targeted advertising
 * together (the `marketing` category): each opt-out is 1 (opted out) when marketing is denied, else
 * 2; the banner was their notice (1). `mspaCovered` is 1 when the publisher signed the MSPA, else 2.
 */
export const usnatFields = (marketing: boolean, gpc: boolean, mspaCovered: boolean): UsnatFields => {
  const optOut = marketing ? 2 : 1
  return {
    Version: USNAT_VERSION,
    SharingNotice: 0,
    SaleOptOutNotice: 1,
    SharingOptOutNotice: 1,
    TargetedAdvertisingOptOutNotice: 1,
    SensitiveDataProcessingOptOutNotice: 0,
    SensitiveDataLimitUseNotice: 0,
    SaleOptOut: optOut,
    SharingOptOut: optOut,
    TargetedAdvertisingOptOut: optOut,
    SensitiveDataProcessing: Array<number>(16).fill(0),
    KnownChildSensitiveDataConsents: [0, 0, 0],
    PersonalDataConsents: 0,
    MspaCoveredTransaction: mspaCovered ? 1 : 2,
    MspaOptOutOptionMode: 0,
    MspaServiceProviderMode: 0,
    GpcSegmentType: 1,
    Gpc: gpc
  }
}

// Header: Type 3, Version 1, one section id (7) as a Fibonacci range: 1 range, single, Fibonacci(7) = 01011.
const HEADER = new BitWriter().int(3, 6).int(1, 6).int(1, 12).bool(false).bool(false).bool(true).bool(false).bool(true)
  .bool(true).toBase64Url()

/** `<header>~<core>.<gpc>`: the GPC segment is always included. */
export const encodeUsnat = (f: UsnatFields): string => {
  const core = new BitWriter().int(f.Version, 6)
  for (const n of [
    f.SharingNotice,
    f.SaleOptOutNotice,
    f.SharingOptOutNotice,
    f.TargetedAdvertisingOptOutNotice,
    f.SensitiveDataProcessingOptOutNotice,
    f.SensitiveDataLimitUseNotice,
    f.SaleOptOut,
    f.SharingOptOut,
    f.TargetedAdvertisingOptOut,
    ...f.SensitiveDataProcessing,
    ...f.KnownChildSensitiveDataConsents,
    f.PersonalDataConsents,
    f.MspaCoveredTransaction,
    f.MspaOptOutOptionMode,
    f.MspaServiceProviderMode
  ]) core.int(n, 2)
  const gpc = new BitWriter().int(f.GpcSegmentType, 2).bool(f.Gpc)
  return `${HEADER}~${core.toBase64Url()}.${gpc.toBase64Url()}`
}
