// Lint rules: ESLint's and typescript-eslint's recommended sets, without type information so a
// run takes seconds (tsc --noEmit already does the type checking). Formatting is Prettier's job;
// neither recommended set has formatting rules, so nothing here conflicts with it.
import js from "@eslint/js";
import { defineConfig, globalIgnores } from "eslint/config";
import globals from "globals";
import tseslint from "typescript-eslint";

export default defineConfig(
  // node_modules/ is ignored by default; the rest is built or written by runs.
  globalIgnores(["dist/", "coverage/", ".pairflow/", "scratch/", "examples/**/out/"]),
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: { globals: globals.node },
    rules: {
      // `const { id: _, ...rest } = p` is how the code drops a key from a copy.
      "@typescript-eslint/no-unused-vars": ["error", { ignoreRestSiblings: true }],
      // The code compares with === throughout; `x == null` stays allowed for "null or undefined".
      eqeqeq: ["error", "smart"],
      // One import statement per module; `import type` beside a value import of the same module is fine.
      "no-duplicate-imports": ["error", { allowSeparateTypeImports: true }],
      // Not enabled, on purpose: @typescript-eslint/no-non-null-assertion (from the "strict" set).
      // With noUncheckedIndexedAccess every indexed read may be undefined, and the code uses `!`
      // where it knows the entry exists (graph order, ids it just listed); some 300 places.
    },
  },
  {
    files: ["test/**"],
    rules: {
      // Tests match terminal output: the ESC of colour codes, and indentation copied verbatim
      // into expected-output patterns, where `/-  task/` reads better than `/- {2}task/`.
      "no-control-regex": "off",
      "no-regex-spaces": "off",
    },
  },
);
