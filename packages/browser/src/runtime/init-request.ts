import type { SvcConfig } from "./config.js"

export const POLICY_CONTRACT = "1"

export interface Journey {
  id?: string | undefined
  scope?: string | undefined
  stored?: string | undefined
}

export const experimentParam = (experiment: SvcConfig["experiment"]): string | undefined => {
  if (experiment === undefined) return undefined
  if (typeof experiment === "string") return experiment.includes("=") ? experiment : undefined
  return `${encodeURIComponent(experiment.id)}=${encodeURIComponent(experiment.arm)}`
}

export const parseExperiment = (experiment: SvcConfig["experiment"]): { id: string; arm: string } | undefined => {
  if (experiment === undefined) return undefined
  if (typeof experiment !== "string") return experiment
  const at = experiment.indexOf("=")
  if (at < 1) return undefined
  try {
    return { id: decodeURIComponent(experiment.slice(0, at)), arm: decodeURIComponent(experiment.slice(at + 1)) }
  } catch {
    return undefined
  }
}

/**
 * `GET <backend>/init` with every input in the query string, so a cross-origin call needs no
 * preflight. `gpc` is sent only when the page config or the browser signals it; the backend
 * also reads `Sec-GPC`.
 */
export const initURL = (
  backendURL: string,
  config: SvcConfig,
  inputs: { version: string; gpc: boolean | undefined; journey: Journey | undefined }
): string => {
  const q = new URLSearchParams()
  q.set("v", inputs.version)
  q.set("contract", POLICY_CONTRACT)
  if (config.country) q.set("country", config.country)
  if (config.region) q.set("region", config.region)
  if (inputs.gpc !== undefined) q.set("gpc", inputs.gpc ? "1" : "0")
  const experiment = experimentParam(config.experiment)
  if (experiment !== undefined) q.set("experiment", experiment)
  const journey = inputs.journey
  if (journey?.id) q.set("journey", journey.id)
  if (journey?.scope) q.set("journeyScope", journey.scope)
  if (journey?.stored) q.set("stored", journey.stored)
  return `${backendURL}/init?${q.toString()}`
}
