#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);

// src/model/records.ts
var LOCK_VERSION = 1;
function componentsOf(entry) {
  const c = entry.components;
  return typeof c === "string" ? JSON.parse(c) : c;
}

export {
  LOCK_VERSION,
  componentsOf
};
