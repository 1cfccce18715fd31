/** Synthetic consent rows the export and verify benches write straight into SQLite. */
const START = Date.UTC(2025, 0, 1)
const SPAN = 300 * 86_400_000

/**
 * Row `i` of `rows`: given times spread evenly over 300 days from 2025-01-01, every third one
 * granting measurement, 250,000 subjects in turn.
 */
export const syntheticConsent = (i: number, rows: number) => {
  const givenAt = START + Math.floor((i / rows) * SPAN)
  const granted = i % 3 === 0
  const id = `cns_bench${i.toString(36).padStart(8, "0")}`
  return {
    id,
    subjectId: `sub_bench${(i % 250_000).toString(36).padStart(8, "0")}`,
    actKey: `key-${id}`,
    givenAt,
    granted,
    receipts: JSON.stringify({
      measurement: { value: granted, confirmedAt: givenAt },
      marketing: { value: !granted, confirmedAt: givenAt },
      functionality: { value: true, confirmedAt: givenAt },
      experience: { value: false, confirmedAt: givenAt }
    })
  }
}
