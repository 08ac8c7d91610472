#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import {
  asDict,
  dict,
  isUtf8Name,
  own,
  shownName
} from "./cli-chunk-BXCSBTXN.js";

// src/report/visible.ts
function visible(text) {
  return text.replace(HIDDEN_IN_TEXT, escape);
}
function visibleName(text) {
  return text.replace(HIDDEN_IN_NAME, escape);
}
var HIDDEN_IN_TEXT = /[\x00-\x08\x0b-\x1f\x7f-\x9f\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu;
var HIDDEN_IN_NAME = /[\x00-\x1f\x7f-\x9f\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu;
function escape(ch) {
  const code = ch.codePointAt(0);
  if (code < 256) return `\\x${code.toString(16).padStart(2, "0")}`;
  if (!isUtf8Name(ch)) return shownName(ch);
  const hex = code.toString(16).padStart(4, "0");
  return code > 65535 ? `\\u{${hex}}` : `\\u${hex}`;
}

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
function joinRequestEntry(older, newer) {
  const feedback = older.feedback ?? newer.feedback ? { ...older.feedback, ...newer.feedback } : void 0;
  return { ...older, ...newer, verdicts: { ...older.verdicts, ...newer.verdicts }, ...feedback ? { feedback } : {} };
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
  visible,
  visibleName,
  LOCK_VERSION,
  componentsOf,
  emptyLock,
  lockEntry,
  joinRequestEntry,
  isRequestEntry,
  isBatchRecord
};
