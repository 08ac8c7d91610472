#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);

// src/cli/timing.ts
import { appendFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
var marks = [];
var file;
function startTiming(env, argv) {
  file = env.PAIRFLOW_TIMING || void 0;
  if (file === void 0) return;
  mark("main");
  process.on("exit", () => {
    mark("exit");
    try {
      appendFileSync(file, JSON.stringify({ pid: process.pid, argv, marks }) + "\n");
    } catch {
    }
  });
}
function mark(phase) {
  if (file !== void 0) marks.push([phase, Math.round(performance.now() * 10) / 10]);
}

export {
  startTiming,
  mark
};
