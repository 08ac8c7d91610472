#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import {
  asDict,
  dict,
  own
} from "./cli-chunk-SCEEUY6E.js";

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
function isRequestEntry(v) {
  if (typeof v !== "object" || v === null) return false;
  const e = v;
  return typeof e.contentHash === "string" && /^[0-9a-f]{64}$/.test(e.contentHash) && typeof e.pair === "string" && typeof e.configRef === "string" && typeof e.at === "string" && typeof e.verdicts === "object" && e.verdicts !== null && Object.values(e.verdicts).every((x) => x === "accepted" || x === "rejected");
}
function isBatchRecord(v) {
  if (typeof v !== "object" || v === null) return false;
  const r = v;
  return typeof r.key === "string" && /^[0-9a-f]{8,64}$/.test(r.key) && (r.provider === "openai" || r.provider === "anthropic") && typeof r.endpoint === "string" && typeof r.at === "string" && (r.id === void 0 || typeof r.id === "string") && (r.file === void 0 || typeof r.file === "string") && (r.state === "submitting" || r.state === "submitted" || r.state === "cancelling" || r.state === "ended") && Array.isArray(r.requests) && r.requests.every(
    (q) => typeof q === "object" && q !== null && typeof q.customId === "string" && typeof q.asked === "string" && typeof q.pair === "string"
  ) && (r.results === void 0 || typeof r.results === "object" && r.results !== null && Object.values(r.results).every(
    (x) => typeof x === "object" && x !== null && (typeof x.contentHash === "string" || ["errored", "expired", "canceled", "invalid"].includes(x.failed ?? "") && typeof x.message === "string")
  )) && (r.used === void 0 || Array.isArray(r.used) && r.used.every((u) => typeof u === "string")) && (r.collected === void 0 || typeof r.collected === "string");
}

export {
  LOCK_VERSION,
  componentsOf,
  emptyLock,
  lockEntry,
  isRequestEntry,
  isBatchRecord
};
