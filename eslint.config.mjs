// Lint: rules that catch real problems (see docs/adr/0008-eslint-for-real-problems.md).
// Formatting is not checked here but by eslint.format.config.mjs (`npm run format:check`).
import js from "@eslint/js"
import tseslint from "typescript-eslint"

// Files in tsconfig.test.json's program: linted with type information (one program for all of them).
const typed = ["packages/*/src/**/*.ts", "packages/*/test/**/*.ts", "packages/*/examples/**/*.ts", "scripts/**/*.ts",
  "examples/**/*.ts"]
const tests = ["packages/*/test/**/*.ts", "examples/test/**/*.ts"]
// Library code where a plain `as T` is an error: values are decoded, narrowed by a guard or built by
// a typed helper. One that must stay says why: `// eslint-disable-next-line
// @typescript-eslint/consistent-type-assertions -- why`. (`as const` is not a cast.)
const assertionFree = [
  "packages/schema/src/**/*.ts",
  "packages/api/src/**/*.ts",
  "packages/client/src/**/*.ts",
  "packages/browser/src/**/*.ts",
  "packages/server/src/**/*.ts",
  "packages/backend/src/**/*.ts"
]

// Dot-named files and folders are local scratch (never committed), as are build outputs.
export const ignores = {
  ignores: ["**/dist/**", "**/node_modules/**", "coverage/**", "dist-packages/**", "test-output/**", "**/.*"]
}

export default tseslint.config(
  ignores,
  { linterOptions: { reportUnusedDisableDirectives: "error" } },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    rules: {
      // TypeScript reports undefined names in .ts files; the few .mjs/.js files are build scripts.
      "no-undef": "off",
      // Effect.gen(function*() { ... }) without a yield is an ordinary way to build an effect.
      "require-yield": "off",
      "no-empty": ["error", { allowEmptyCatch: true }],
      // Input validation here rejects control characters on purpose.
      "no-control-regex": "off",
      // Unused names in .ts files are the compiler's (noUnusedLocals, noUnusedParameters): one judge.
      "@typescript-eslint/no-unused-vars": "off",
      // Schema.Class and Context.Tag declarations need an empty interface merged with the class.
      "@typescript-eslint/no-empty-object-type": ["error", { allowInterfaces: "with-single-extends" }],
      // Import hygiene: one import per module (a separate `import type` allowed), no reaching into
      // another package's build output or sources.
      "no-duplicate-imports": ["error", { allowSeparateTypeImports: true }],
      "no-restricted-imports": ["error", {
        patterns: [
          {
            group: ["**/dist", "**/dist/**", "@svc/*/dist/**"],
            message: "Import the package (or its source), never a build output."
          },
          { group: ["@svc/*/src/**"], message: "Import the package by its name; its exports map picks the source." }
        ]
      }]
    }
  },
  {
    files: typed,
    languageOptions: {
      parserOptions: { project: "./tsconfig.test.json", tsconfigRootDir: import.meta.dirname }
    },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/await-thenable": "error",
      "@typescript-eslint/no-misused-promises": ["error", { checksVoidReturn: { arguments: false, attributes: false } }]
    }
  },
  {
    files: ["packages/*/src/**/*.ts"],
    rules: {
      // Casts that switch the checker off. None is left; one that must come needs a reason:
      // `// eslint-disable-next-line no-restricted-syntax -- why`.
      "no-restricted-syntax": ["error", {
        selector: "TSAsExpression > TSAsExpression.expression > TSUnknownKeyword.typeAnnotation",
        message: "`as unknown as T` hides a type error; derive the type or say why in an eslint-disable comment."
      }, {
        selector: "TSAsExpression > TSNeverKeyword.typeAnnotation",
        message: "`as never` switches the checker off; derive the type or say why in an eslint-disable comment."
      }]
    }
  },
  ...(assertionFree.length === 0 ? [] : [{
    files: assertionFree,
    rules: { "@typescript-eslint/consistent-type-assertions": ["error", { assertionStyle: "never" }] }
  }]),
  {
    files: tests,
    rules: {
      // A focused test silently skips the rest of the suite in CI.
      "no-restricted-syntax": ["error", {
        selector: "CallExpression > MemberExpression.callee[property.name='only']",
        message: "Focused test (.only): the rest of the suite would not run."
      }],
      // Tests poke at untyped wire bodies and browser globals.
      "@typescript-eslint/no-explicit-any": "off"
    }
  },
  {
    files: ["**/*.js", "**/*.mjs"],
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", {
        argsIgnorePattern: "^_",
        varsIgnorePattern: "^_",
        caughtErrors: "none"
      }]
    }
  },
  {
    // README fragments: a block may show its imports next to the code that needs them.
    files: ["examples/*.ts"],
    rules: { "no-duplicate-imports": "off" }
  }
)
