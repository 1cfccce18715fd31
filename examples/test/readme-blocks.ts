import { readFileSync } from "node:fs"
import { dirname, join } from "node:path"

export interface CodeBlock {
  readonly lang: string
  readonly code: string
  /**
   * The example file the block shows, absolute: `<!-- example: PATH -->` on the line before the
   * fence (the block is the whole file) or `<!-- example fragment: PATH -->` (the block's lines
   * appear in the file, indentation aside).
   */
  readonly file: string | undefined
  readonly fragment: boolean
  readonly line: number
}

/** The fenced code blocks of a Markdown file, each with the example file it is marked as. */
export const codeBlocks = (readme: string): Array<CodeBlock> => {
  const text = readFileSync(readme, "utf8")
  const blocks: Array<CodeBlock> = []
  for (const match of text.matchAll(/(?:<!-- example( fragment)?: (\S+) -->\n)?```(\w*)\n([\s\S]*?)^```$/gm)) {
    blocks.push({
      lang: match[3]!,
      code: match[4]!,
      file: match[2] === undefined ? undefined : join(dirname(readme), match[2]),
      fragment: match[1] !== undefined,
      line: text.slice(0, match.index).split("\n").length
    })
  }
  return blocks
}

const trimmedLines = (text: string) => text.split("\n").map((line) => line.trim())

/** Whether the fragment's lines appear, in order and together, in the file (indentation aside). */
export const containsFragment = (file: string, fragment: string): boolean => {
  const haystack = trimmedLines(file).join("\n")
  return haystack.includes(trimmedLines(fragment.replace(/\n$/, "")).join("\n"))
}

/** One command block of a walkthrough, with the answer the README shows for it (the `json` block after it). */
export interface WalkthroughStep {
  readonly code: string
  readonly expected: unknown
  readonly line: number
}

/**
 * The `sh` blocks of the section under `## <heading>`, in order, each with the parsed `json` block
 * that directly follows it (`undefined` when none does).
 */
export const walkthroughSteps = (readme: string, heading: string): Array<WalkthroughStep> => {
  const lines = readFileSync(readme, "utf8").split("\n")
  const start = lines.indexOf(`## ${heading}`) + 1
  if (start === 0) throw new Error(`${readme} has no section "## ${heading}"`)
  const next = lines.findIndex((line, i) => i >= start && line.startsWith("## "))
  const end = next === -1 ? lines.length : next + 1
  const blocks = codeBlocks(readme).filter((block) => block.line > start && block.line < end)
  return blocks.flatMap((block, i) => {
    if (block.lang !== "sh") return []
    const answer = blocks[i + 1]
    return [{
      code: block.code,
      expected: answer?.lang === "json" ? JSON.parse(answer.code) : undefined,
      line: block.line
    }]
  })
}
