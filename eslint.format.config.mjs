// Format: dprint (through @effect/eslint-plugin), set to the code's own style. `npm run format:check`
// reports, `npm run format` rewrites. Kept apart from eslint.config.mjs so that linting never waits
// on formatting and formatting needs no type information.
import effect from "@effect/eslint-plugin"
import tseslint from "typescript-eslint"
import { ignores } from "./eslint.config.mjs"

export default [
  ignores,
  // The README's code blocks are these files (examples/test/readme.test.ts compares them): their
  // layout is chosen for reading in the README, so the formatter leaves them alone.
  { ignores: ["examples/*.ts", "packages/*/examples/**"] },
  // Disable comments are the linter's business; the lint rules they name must still be known here.
  { linterOptions: { reportUnusedDisableDirectives: "off" }, plugins: { "@typescript-eslint": tseslint.plugin } },
  { files: ["**/*.ts"], languageOptions: { parser: tseslint.parser } },
  {
    files: ["**/*.ts", "**/*.js", "**/*.mjs"],
    plugins: { "@effect": effect },
    rules: {
      "@effect/dprint": ["error", {
        config: {
          indentWidth: 2,
          lineWidth: 120,
          semiColons: "asi",
          quoteStyle: "preferDouble",
          trailingCommas: "never",
          operatorPosition: "maintain",
          "arrowFunction.useParentheses": "force",
          // Keep what the code already does rather than reorder or reshape it.
          "module.sortImportDeclarations": "maintain",
          "module.sortExportDeclarations": "maintain",
          "importDeclaration.sortNamedImports": "maintain",
          "exportDeclaration.sortNamedExports": "maintain",
          "classDeclaration.bracePosition": "sameLine",
          "classExpression.bracePosition": "sameLine",
          preferSingleLine: false,
          useBraces: "maintain",
          singleBodyPosition: "maintain",
          "arrayExpression.preferHanging": "always",
          "forOfStatement.preferHanging": true
        }
      }]
    }
  }
]
