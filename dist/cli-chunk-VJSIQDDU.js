#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import {
  nameFor
} from "./cli-chunk-FEFDJVE6.js";
import {
  visible
} from "./cli-chunk-7NHSQKXA.js";
import {
  formatIssue
} from "./cli-chunk-BXCSBTXN.js";

// src/report/issues.ts
var SHOWN_PER_FILE = 50;
function issueLines(issues, tag, perFile = SHOWN_PER_FILE) {
  const total = /* @__PURE__ */ new Map();
  for (const issue of issues) total.set(issue.file, (total.get(issue.file) ?? 0) + 1);
  const shown = /* @__PURE__ */ new Map();
  const lines = [];
  for (const issue of issues) {
    const n = (shown.get(issue.file) ?? 0) + 1;
    shown.set(issue.file, n);
    if (n <= perFile) lines.push(`${tag} ${visible(formatIssue(issue))}`);
    const more = total.get(issue.file) - perFile;
    if (n === perFile && more > 0)
      lines.push(`... and ${more} more ${more === 1 ? "problem" : "problems"} in ${nameFor(issue.file, "terminal")} (--json lists them all)`);
  }
  return lines;
}

export {
  SHOWN_PER_FILE,
  issueLines
};
