#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import {
  asDict,
  dict,
  own
} from "./cli-chunk-YFM4J6CT.js";

// src/model/records.ts
var LOCK_VERSION = 1;
function componentsOf(entry) {
  const c = entry.components;
  return typeof c === "string" ? asDict(JSON.parse(c)) : c;
}
function emptyLock(workflow) {
  return { version: LOCK_VERSION, workflow, pairs: dict() };
}
function lockEntry(lock, id) {
  return own(lock?.pairs, id);
}

export {
  LOCK_VERSION,
  componentsOf,
  emptyLock,
  lockEntry
};
