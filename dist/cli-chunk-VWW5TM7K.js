#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import {
  CHARS_PER_TOKEN,
  DEFAULT_OUTPUT_TOKENS,
  callsModel,
  costOf,
  totals,
  usd
} from "./cli-chunk-PLNGSJXI.js";
import {
  nameFor
} from "./cli-chunk-RZP2DAPF.js";
import {
  visible
} from "./cli-chunk-FXVKKO2N.js";
import {
  commandNetwork,
  displayPath,
  grouped,
  instanceId,
  shortRef
} from "./cli-chunk-E7Q4V3C4.js";

// src/report/markdown.ts
function md(text) {
  return nameFor(text, "markdown");
}
function code(text) {
  return nameFor(text, "code");
}
function longestRun(lines, ch) {
  let best = 0;
  for (const line of lines) {
    let run = 0;
    for (const c of line) {
      run = c === ch ? run + 1 : 0;
      if (run > best) best = run;
    }
  }
  return best;
}
function bytes(text) {
  return Buffer.byteLength(text, "utf8");
}

// src/report/estimate.ts
var integer;
function tokensText(n) {
  integer ??= new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });
  return integer.format(n);
}
function attemptsText(n) {
  return Number.isInteger(n) ? String(n) : n.toFixed(1);
}
function costText(cost) {
  return cost === null ? "cost unknown" : usd(cost);
}
function listed(ids) {
  return ids.length <= 10 ? ids.join(", ") : `${ids.slice(0, 10).join(", ")} and ${ids.length - 10} more`;
}
function totalCostText(estimate) {
  const t = estimate.totals;
  if (t.cost !== null) return usd(t.cost);
  const unknown = estimate.pairs.filter((p) => p.cost === null).length;
  return unknown === estimate.pairs.length ? "cost unknown" : `${usd(t.knownCost)} + cost unknown for ${plural(unknown, "pair")}`;
}
function plural(n, noun) {
  return `${tokensText(n)} ${noun}${n === 1 ? "" : "s"}`;
}
function estimateTotal(estimate) {
  const t = estimate.totals;
  return `${tokensText(t.tokens.input + t.tokens.output)} tokens, ${totalCostText(estimate)}`;
}
function estimateHeadline(estimate, running = estimate.totals.pairs) {
  const n = estimate.totals.pairs;
  if (n === 0) return running === 0 ? "nothing to run, no cost" : `none of the ${tokensText(running)} pairs to run calls a model: no cost`;
  if (n < running) return `the ${tokensText(n)} of ${tokensText(running)} pairs to run that call a model: ${estimateTotal(estimate)}`;
  return `${plural(n, "pair")} to run: ${estimateTotal(estimate)}`;
}
var HEADER = { pair: "pair", model: "model", input: "input", output: "output", attempts: "attempts", tokens: "tokens", cost: "cost" };
function rows(estimate) {
  const list2 = estimate.pairs.map((p) => ({
    pair: p.id,
    model: p.model ?? "-",
    input: (p.tokenizer === "approximate" && p.outputBasis !== "none" ? "~" : "") + tokensText(p.inputTokens),
    output: tokensText(p.outputTokens),
    attempts: attemptsText(p.attempts),
    tokens: tokensText(p.tokens.input + p.tokens.output),
    cost: costText(p.cost)
  }));
  const t = estimate.totals;
  list2.push({
    pair: "total",
    model: "",
    input: "",
    output: "",
    attempts: "",
    tokens: tokensText(t.tokens.input + t.tokens.output),
    cost: totalCostText(estimate)
  });
  return list2;
}
var MAX_NOTE_IDS = 10;
var MAX_PAIR_NOTES = 10;
function estimateNotes(estimate, all = false) {
  const notes = [];
  const ids = (f) => {
    const list2 = estimate.pairs.filter(f).map((p) => p.id);
    const shown2 = all ? list2 : list2.slice(0, MAX_NOTE_IDS);
    return list2.length > shown2.length ? [...shown2.slice(0, -1), `${shown2[shown2.length - 1]} and ${tokensText(list2.length - shown2.length)} more`] : shown2;
  };
  const models = (f) => [...new Set(estimate.pairs.filter(f).map((p) => p.model ?? "(no model)"))].join(", ");
  const some = (f) => estimate.pairs.some(f);
  notes.push("input and output are per attempt; tokens is (input + output) \xD7 attempts");
  if (some((p) => p.tokenizer === "o200k_base")) notes.push(`input counted with the o200k_base tokenizer for ${models((p) => p.tokenizer === "o200k_base")}`);
  if (some((p) => p.tokenizer === "approximate" && p.outputBasis !== "none")) {
    notes.push(
      `~ approximate input: characters / ${CHARS_PER_TOKEN}, as pairflow has no tokenizer for ${models((p) => p.tokenizer === "approximate" && p.outputBasis !== "none")}`
    );
  }
  const output = [];
  if (some((p) => p.outputBasis === "history")) output.push(`median of past accepted attempts for ${ids((p) => p.outputBasis === "history").join(", ")}`);
  if (some((p) => p.outputBasis === "max_tokens")) output.push(`generator_config.max_tokens for ${ids((p) => p.outputBasis === "max_tokens").join(", ")}`);
  if (some((p) => p.outputBasis === "default"))
    output.push(`${tokensText(DEFAULT_OUTPUT_TOKENS)} by default (no history, no max_tokens) for ${ids((p) => p.outputBasis === "default").join(", ")}`);
  if (output.length > 0) notes.push(`output: ${output.join("; ")}`);
  const attempts = [];
  if (some((p) => p.attemptsBasis === "history")) attempts.push(`median of past accepted runs for ${ids((p) => p.attemptsBasis === "history").join(", ")}`);
  if (some((p) => p.attemptsBasis === "default")) attempts.push(`1 (no history) for ${ids((p) => p.attemptsBasis === "default").join(", ")}`);
  if (attempts.length > 0) notes.push(`attempts: ${attempts.join("; ")}`);
  const prices = [];
  if (some((p) => p.price?.source === "workflow")) prices.push(`the workflow's pricing: for ${models((p) => p.price?.source === "workflow")}`);
  if (some((p) => p.price?.source === "built-in"))
    prices.push(`built-in prices of ${estimate.pricesAsOf} for ${models((p) => p.price?.source === "built-in")}`);
  if (some((p) => p.price === null)) prices.push(`no price for ${models((p) => p.price === null)} (add it under pricing: in the workflow file)`);
  notes.push(`prices: ${prices.join("; ")}`);
  const batched = ids((p) => p.tokens.batch === true);
  if (batched.length > 0) notes.push(`batch prices for ${listed(batched)}: their requests go through the provider's batch API`);
  const read = estimate.pairs.reduce((sum, p) => sum + (p.tokens.cacheRead ?? 0), 0);
  if (read > 0) {
    const written = estimate.pairs.reduce((sum, p) => sum + (p.tokens.cacheWrite ?? 0), 0);
    notes.push(
      `prompt cache: ${tokensText(read)} input tokens expected from it at the cached-input price${written > 0 ? `, ${tokensText(written)} written to it` : ""}, as ${plural(ids((p) => (p.tokens.cacheRead ?? 0) + (p.tokens.cacheWrite ?? 0) > 0).length, "pair")} begin alike (the workflow's context, their role and constraints, leading dependencies)`
    );
  }
  for (const e of estimate.paced ?? []) {
    const limits = [
      e.tokensPerMinute === void 0 ? "" : `${tokensText(e.tokensPerMinute)} tokens`,
      e.requestsPerMinute === void 0 ? "" : `${tokensText(e.requestsPerMinute)} requests`
    ].filter((x) => x !== "").join(", ");
    const takes = e.ms < 6e4 ? "within the first minute" : `about ${Math.ceil(e.ms / 6e4)} min`;
    notes.push(
      `at ${limits}/min (the rate_limit of ${e.endpoint}${e.model === null ? "" : `, ${e.model}`}): ${takes} for ${plural(Math.ceil(e.calls), "call")}`
    );
  }
  const perPair = estimate.pairs.flatMap((p) => p.notes.map((note) => `${p.id}: ${note}`));
  const shown = all ? perPair : perPair.slice(0, MAX_PAIR_NOTES);
  notes.push(...shown);
  if (shown.length < perPair.length) notes.push(`and ${tokensText(perPair.length - shown.length)} more notes on single pairs (plan --json has each pair's)`);
  return notes;
}
function estimateText(estimate, style, options = {}) {
  if (estimate.pairs.length === 0) return style.bold(`Estimate: ${estimateHeadline(estimate, options.running ?? 0)}`) + "\n";
  const table = [HEADER, ...rows(estimate).map((r) => ({ ...r, pair: nameFor(r.pair, "terminal"), model: nameFor(r.model, "terminal") }))];
  const keys = Object.keys(HEADER);
  const right = /* @__PURE__ */ new Set(["input", "output", "attempts", "tokens"]);
  const widths = keys.map((k) => Math.max(...table.map((r) => r[k].length)));
  const lines = [style.bold(`Estimate for ${estimateHeadline(estimate, options.running)}`)];
  table.forEach((r, n) => {
    const line = "  " + keys.map((k, i) => right.has(k) && n > 0 ? r[k].padStart(widths[i]) : r[k].padEnd(widths[i])).join("  ").trimEnd();
    lines.push(n === 0 || n === table.length - 1 ? style.bold(line) : line);
  });
  for (const note of estimateNotes(estimate, options.all)) lines.push(style.dim(`  - ${nameFor(note, "terminal")}`));
  return lines.join("\n") + "\n";
}
var byIdOf = /* @__PURE__ */ new WeakMap();
function pairEstimateJson(estimate, id) {
  let byId = byIdOf.get(estimate);
  if (!byId) {
    byId = new Map(estimate.pairs.map((e) => [e.id, e]));
    byIdOf.set(estimate, byId);
  }
  const p = byId.get(id);
  if (!p) return null;
  const { id: _, spends: __, ...rest } = p;
  return { ...rest, tokens: { ...rest.tokens }, price: rest.price && { ...rest.price }, notes: [...rest.notes] };
}
function totalsEstimateJson(estimate) {
  const t = estimate.totals;
  return {
    pairs: t.pairs,
    tokens: { ...t.tokens },
    cost: t.cost,
    knownCost: t.knownCost,
    unpricedModels: [...t.unpricedModels],
    pricesAsOf: estimate.pricesAsOf
  };
}
function compareWithRun(estimate, report) {
  const outcomes = new Map(report.pairs.map((o) => [o.id, o]));
  const pairs = estimate.pairs.map((e) => {
    const outcome = outcomes.get(e.id);
    const attempts = outcome?.attempts ?? [];
    const reported = attempts.filter((a) => a.tokens !== null);
    let tokens = null;
    if (attempts.length === 0)
      tokens = { input: 0, output: 0 };
    else if (reported.length > 0) {
      tokens = { input: 0, output: 0 };
      for (const a of reported) {
        tokens.input += a.tokens.input;
        tokens.output += a.tokens.output;
      }
    }
    const cost = tokens && e.price ? reported.reduce((sum2, a) => sum2 + costOf(a.tokens, e.price), 0) : null;
    return {
      id: e.id,
      status: outcome?.status ?? "not run",
      estimated: { tokens: { ...e.tokens }, cost: e.cost },
      actual: { tokens, cost }
    };
  });
  const sum = (list2) => list2.some((t) => t === null) ? null : list2.reduce((s, t) => ({ input: s.input + t.input, output: s.output + t.output }), { input: 0, output: 0 });
  const total = (list2) => list2.some((c) => c === null) ? null : list2.reduce((s, c) => s + c, 0);
  return {
    pairs,
    totals: {
      estimated: { tokens: sum(pairs.map((p) => p.estimated.tokens)), cost: total(pairs.map((p) => p.estimated.cost)) },
      actual: { tokens: sum(pairs.map((p) => p.actual.tokens)), cost: total(pairs.map((p) => p.actual.cost)) }
    }
  };
}
function comparisonRows(c) {
  const tokens = (t2) => t2 === null ? "not reported" : tokensText(t2.input + t2.output);
  const cost = (n, t2) => t2 === null ? "-" : costText(n);
  const list2 = c.pairs.map((p) => [
    p.id,
    p.status,
    tokens(p.estimated.tokens),
    tokens(p.actual.tokens),
    cost(p.estimated.cost),
    cost(p.actual.cost, p.actual.tokens)
  ]);
  const t = c.totals;
  list2.push(["total", "", tokens(t.estimated.tokens), tokens(t.actual.tokens), cost(t.estimated.cost), cost(t.actual.cost, t.actual.tokens)]);
  return list2;
}
var COMPARISON_HEADER = ["pair", "status", "est. tokens", "actual tokens", "est. cost", "actual cost"];
function comparisonText(c, style) {
  if (c.pairs.length === 0) return "";
  const table = [COMPARISON_HEADER, ...comparisonRows(c)];
  const widths = COMPARISON_HEADER.map((_, i) => Math.max(...table.map((r) => r[i].length)));
  const lines = [style.bold("Estimated against actual")];
  table.forEach((r, n) => {
    const line = "  " + r.map((cell, i) => i >= 2 && n > 0 ? cell.padStart(widths[i]) : cell.padEnd(widths[i])).join("  ").trimEnd();
    lines.push(n === 0 || n === table.length - 1 ? style.bold(line) : line);
  });
  if (c.pairs.some((p) => p.actual.tokens === null))
    lines.push(style.dim("  - not reported: the generator gave no token usage (a command generator, or a provider that sends none)"));
  return lines.join("\n") + "\n";
}

// src/report/fit.ts
var SGR = /\x1b\[[0-9;]*m/g;
function cut(text, width) {
  if ([...text.replace(SGR, "")].length <= width) return text;
  let out = "";
  let shown = 0;
  let from = 0;
  for (const sgr of [...text.matchAll(SGR), null]) {
    const end = sgr === null ? text.length : sgr.index;
    for (const ch of text.slice(from, end)) {
      if (shown === width - 1) return `${out}\u2026${out.includes("\x1B[") ? "\x1B[0m" : ""}`;
      out += ch;
      shown++;
    }
    if (sgr === null) break;
    out += sgr[0];
    from = end + sgr[0].length;
  }
  return out;
}
function fitLines(text, columns) {
  if (columns === void 0 || columns < 2) return text;
  return text.split("\n").map((line) => cut(line, columns - 1)).join("\n");
}

// src/report/failure.ts
var OMITTED = "[earlier output omitted]";
var STRONG = /(error|errors|exception)\b|\b(assert\w*|expected|panic(ked)?|fatal|undefined|cannot|can't|unexpected|missing|invalid)\b/i;
var WEAK = /\b(fail(ed|s|ure|ing)?|not ok|refused|rejected|denied)\b|[×✖✗❌]/i;
var MAX_ERROR_LINES = 2;
var MAX_QUOTED = 120;
function failureHeadline(note, max = 240, options = {}) {
  const text = visible((note ?? "").replace(/\r\n?/g, "\n"));
  const [first = "", ...rest] = text.split("\n");
  const m = /^([^:]{1,80}?:)\s*(.*)$/.exec(first);
  const lead = m && rest.length > 0 ? m[1] : "";
  const lines = [m && rest.length > 0 ? m[2] : first, ...rest].map((l) => l.replace(OMITTED, "").replace(/\s+/g, " ").trim()).filter((l) => l !== "" && !/^[-=_⎯─━*#~ ]+$/.test(l));
  if (lines.length === 0) return clip(lead.replace(/:$/, "") || "failed", max);
  const picked = errorLines(lines);
  if (picked.length === 0) picked.push(0);
  const last = lines.length - 1;
  if (options.last !== false && !picked.includes(last)) picked.push(last);
  let out = lead ? `${lead} ` : "";
  let previous = -1;
  for (const i of picked) {
    const gap = i - previous - 1;
    if (previous >= 0) out += gap === 0 ? " / " : ` \u2026 ${gap === 1 ? "1 line" : `${gap} lines`} \u2026 `;
    else if (gap > 0) out += "\u2026 ";
    out += clip(lines[i], MAX_QUOTED);
    previous = i;
  }
  return clip(out, max);
}
function errorLines(lines) {
  const picked = [];
  const core = (l) => l.replace(/^[^\p{L}\p{N}]+/u, "").toLowerCase();
  const add = (pattern) => {
    for (const [i, line] of lines.entries()) {
      if (picked.length >= MAX_ERROR_LINES) return;
      if (picked.includes(i) || !pattern.test(line)) continue;
      const c = core(line);
      if (picked.some((j) => core(lines[j]).includes(c) || c.includes(core(lines[j])))) continue;
      picked.push(i);
    }
  };
  add(STRONG);
  if (picked.length === 0) add(WEAK);
  return picked.sort((a, b) => a - b);
}
function clip(text, max) {
  return text.length <= max ? text : `${text.slice(0, max - 1)}\u2026`;
}

// src/report/impact.ts
var UNCHANGED = /* @__PURE__ */ new Set(["skip", "reused"]);
function isAffected(node2) {
  return node2.planned ?? !UNCHANGED.has(node2.status);
}
function causeGroups(nodes) {
  const affected = new Map(nodes.filter(isAffected).map((n) => [n.id, n]));
  const dependents = /* @__PURE__ */ new Map();
  for (const n of affected.values()) {
    for (const dep of n.requires) {
      if (!affected.has(dep)) continue;
      const list2 = dependents.get(dep);
      if (list2) list2.push(n.id);
      else dependents.set(dep, [n.id]);
    }
  }
  const order = new Map(nodes.map((n, i) => [n.id, i]));
  const cascaded = new Set([...affected.values()].filter((n) => isCascaded(n, affected)).map((n) => n.id));
  const groups = [];
  for (const root of affected.values()) {
    if (cascaded.has(root.id)) continue;
    const seen = /* @__PURE__ */ new Set();
    const queue = [...dependents.get(root.id) ?? []];
    while (queue.length > 0) {
      const id = queue.pop();
      if (seen.has(id) || !cascaded.has(id)) continue;
      seen.add(id);
      queue.push(...dependents.get(id) ?? []);
    }
    groups.push({ root, cascade: [...seen].sort((a, b) => order.get(a) - order.get(b)) });
  }
  return groups;
}
function isCascaded(node2, affected) {
  const deps = new Set(node2.requires.filter((d) => affected.has(d)));
  if (deps.size === 0) return false;
  if (node2.status === "blocked" && node2.reasons.length === 0) return true;
  if (node2.reasons.length === 0) return false;
  return node2.reasons.every((r) => followsFrom(node2, r, deps));
}
function ownReasons(node2, affected) {
  const deps = new Set(node2.requires.filter((d) => affected.has(d)));
  return node2.reasons.filter((r) => !followsFrom(node2, r, deps));
}
function followsFrom(node2, r, deps) {
  if (node2.assembly && deps.size > 0 && (r.component?.kind === "upstream" || r.component?.kind === "generator_config" && r.component.name === "order"))
    return true;
  return (r.component?.kind === "upstream" || r.component?.kind === "artifact") && deps.has(r.component.name) && // A dependency added to or removed from requires is a change of the pair's own settings.
  !/ (added to|removed from) requires$/.test(r.detail);
}
var GRAPH_NODE_LIMIT = 40;
function affectedSubgraph(nodes, limit = GRAPH_NODE_LIMIT) {
  if (nodes.length <= limit) return { nodes, omittedAffected: 0, unchanged: 0 };
  const affected = nodes.filter(isAffected);
  const roots = new Map(causeGroups(nodes).map((g) => [g.root.id, g.cascade.length]));
  const rank = (n) => n.status === "failed" ? 0 : roots.has(n.id) ? 1 : 2;
  const order = new Map(nodes.map((n, i) => [n.id, i]));
  const kept = new Set(
    [...affected].sort((a, b) => rank(a) - rank(b) || (roots.get(b.id) ?? 0) - (roots.get(a.id) ?? 0) || order.get(a.id) - order.get(b.id)).slice(0, limit).map((n) => n.id)
  );
  return { nodes: affected.filter((n) => kept.has(n.id)), omittedAffected: affected.length - kept.size, unchanged: nodes.length - affected.length };
}

// src/report/causes.ts
var STATUS_ORDER = ["failed", "blocked", "interrupted", "executed", "run", "reused", "skip"];
function reach(cause) {
  return cause.roots.length + cause.downstream.length;
}
function causesOf(nodes) {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const order = new Map(nodes.map((n, i) => [n.id, i]));
  const affected = new Map(nodes.filter(isAffected).map((n) => [n.id, n]));
  const merged = /* @__PURE__ */ new Map();
  const firstRun = nodes.length > 0 && nodes.every((n) => n.reasons.length > 0 && n.reasons.every((r) => r.kind === "new" || r.kind === "upstream"));
  for (const group of causeGroups(nodes)) {
    const root = byId.get(group.root.id);
    for (const found of editsOf(root, ownReasons(root, affected))) {
      const edit = firstRun && found.key.startsWith("new\0") ? NOTHING_ACCEPTED : found;
      let cause = merged.get(edit.key);
      if (!cause) merged.set(edit.key, cause = { edit, reasons: /* @__PURE__ */ new Map(), roots: [], downstream: /* @__PURE__ */ new Set() });
      for (const r of edit.reasons) if (!cause.reasons.has(r.detail)) cause.reasons.set(r.detail, r);
      cause.roots.push({ id: root.id, wave: root.wave, status: root.status, downstream: group.cascade.length });
      for (const id of group.cascade) cause.downstream.add(id);
    }
  }
  const causes = [...merged.values()].map((c) => {
    const downstream = [...c.downstream].sort((a, b) => order.get(a) - order.get(b));
    const roots = [...c.roots].sort((a, b) => Number(b.status === "failed") - Number(a.status === "failed") || b.downstream - a.downstream);
    const all = [...roots.map((r) => byId.get(r.id)), ...downstream.map((id) => byId.get(id))];
    const templates = /* @__PURE__ */ new Map();
    for (const n of all) if (n.template !== void 0) templates.set(n.template, (templates.get(n.template) ?? 0) + 1);
    const reasons = [...c.reasons.values()];
    const name = c.edit.name(reasons);
    return {
      key: c.edit.key,
      name,
      why: nameText(name),
      reasons,
      roots,
      downstream,
      waves: waveRange(all),
      templates: [...templates].map(([template, count2]) => ({ template, count: count2 })),
      rootStatuses: statusCounts(roots.map((r) => r.status)),
      downstreamStatuses: statusCounts(downstream.map((id) => byId.get(id).status)),
      failed: roots.filter((r) => r.status === "failed").length
    };
  });
  return causes.sort((a, b) => Number(b.failed > 0) - Number(a.failed > 0) || reach(b) - reach(a));
}
var NOTHING_ACCEPTED = { key: "new\0", reasons: [{ kind: "new", detail: "never accepted" }], name: () => ["new: never accepted"] };
function editsOf(node2, own) {
  const owner = node2.template ?? node2.id;
  const edits = /* @__PURE__ */ new Map();
  const section = node2.section;
  const sectionEdited = section !== void 0 && own.some((r) => r.component?.kind === "piece" || r.kind === "new");
  for (const r of own) {
    const [key, name] = sectionEdited && (r.component?.kind === "piece" || r.component?.kind === "prompt" || r.kind === "new") ? sectionEdit(node2.id, section, r) : editOf(owner, node2.id, r);
    const edit = edits.get(key);
    if (edit) edit.reasons.push(r);
    else edits.set(key, { key, reasons: [r], name });
  }
  if (edits.size === 0)
    edits.set(`status\0${node2.id}`, { key: `status\0${node2.id}`, reasons: [], name: () => [{ code: node2.id }, `: ${node2.status}`] });
  return [...edits.values()];
}
function sectionEdit(id, section, r) {
  const added = r.kind === "new";
  return [
    `section\0${id}`,
    (reasons) => [{ code: section.file }, ` \xA7 ${section.heading}${added && reasons.every((x) => x.kind === "new") ? " added" : ""}`]
  ];
}
var partsOf = (reasons) => [...new Set(reasons.map((r) => r.component?.name).filter((n) => !!n))].join(", ");
function editOf(owner, id, r) {
  const c = r.component;
  const of = (what, subject, parts) => (reasons) => {
    const p = parts?.(reasons) ?? "";
    return [`${what} of `, { code: subject }, ...p ? [` (${p})`] : []];
  };
  switch (c?.kind) {
    case "prompt":
      return [`prompt\0${owner}`, of("prompt", owner, partsOf)];
    case "context":
      return [`context\0${c.name}`, () => [`workflow ${c.name}`]];
    case "layout":
      return ["layout", () => ["pairflow's prompt layout"]];
    case "input":
    case "generator_file":
    case "guard_file":
    case "observed": {
      const role = c.kind === "input" ? "input" : c.kind === "generator_file" ? "generator's file" : c.kind === "guard_file" ? "guard's file" : "file read";
      return [`file\0${c.name}`, () => [`${role} `, { code: c.name }]];
    }
    case "model":
      return [`model\0${owner}`, of("model", owner, (rs) => /\((was [^)]*)\)/.exec(rs[0]?.detail ?? "")?.[1] ?? "")];
    case "guard":
    case "guards":
      return [`guard\0${owner}`, of("guard", owner)];
    case "guard_config":
      return [`guard_config\0${owner}`, of("guard settings", owner, partsOf)];
    case "generator":
      return [`generator\0${owner}`, of("generator", owner)];
    case "generator_config":
      return [`generator_config\0${owner}`, of("generator settings", owner, partsOf)];
    case "piece":
      return [`piece\0${id}`, of("section", id)];
    case "upstream":
    case "artifact": {
      if (/ (added to|removed from) requires$/.test(r.detail)) return [`requires\0${owner}`, of("requires", owner, requiresParts)];
      const edited = /edited by hand$/.test(r.detail);
      return [`${edited ? "edited" : "upstream"}\0${c.name}`, () => [{ code: c.name }, edited ? "'s output, edited by hand" : "'s accepted content"]];
    }
  }
  switch (r.kind) {
    case "forced":
      return [`forced\0${r.detail}`, () => [{ code: r.detail }]];
    case "new":
      return [`new\0${id}`, () => r.detail === "never accepted" ? ["new pair ", { code: id }] : [{ code: id }, `: ${r.detail}`]];
    case "rejected":
      return [`rejected\0${id}`, () => [{ code: id }, ": last attempt rejected"]];
    case "carried":
      return [`carried\0${id}`, () => [{ code: id }, ": a person's edit carried forward"]];
    default:
      return [`${r.kind}\0${owner}\0${r.detail}`, () => [{ code: owner }, `: ${r.detail}`]];
  }
}
function requiresParts(reasons) {
  const list2 = (how) => reasons.filter((r) => r.detail.endsWith(` ${how} requires`)).map((r) => r.component?.name ?? "");
  const added = list2("added to");
  const removed = list2("removed from");
  return [added.length > 0 ? `added ${added.join(", ")}` : "", removed.length > 0 ? `removed ${removed.join(", ")}` : ""].filter(Boolean).join("; ");
}
function nameText(name) {
  return name.map((p) => typeof p === "string" ? p : p.code).join("");
}
function nameIn(name, words, quote) {
  return name.map((p) => typeof p === "string" ? words(p) : quote(p.code)).join("");
}
function waveRange(nodes) {
  let first = Infinity;
  let last = -Infinity;
  for (const n of nodes) {
    if (n.wave < first) first = n.wave;
    if (n.wave > last) last = n.wave;
  }
  return { first, last };
}
function append(map, key, value) {
  const list2 = map.get(key);
  if (list2) list2.push(value);
  else map.set(key, [value]);
}
function statusCounts(statuses) {
  const counts = /* @__PURE__ */ new Map();
  for (const s of statuses) counts.set(s, (counts.get(s) ?? 0) + 1);
  const rank = (s) => STATUS_ORDER.includes(s) ? STATUS_ORDER.indexOf(s) : STATUS_ORDER.length;
  return [...counts].sort(([a], [b]) => rank(a) - rank(b)).map(([status, count2]) => ({ status, count: count2 }));
}
function failuresOf(nodes, notes) {
  const blocked = blockedBy(nodes);
  return nodes.filter((n) => n.status === "failed").map((n) => ({
    id: n.id,
    wave: n.wave,
    headline: failureHeadline(notes.get(n.id) ?? null),
    note: notes.get(n.id) ?? null,
    blocked: blocked.get(n.id) ?? 0
  }));
}
function blockedBy(nodes) {
  const dependents = /* @__PURE__ */ new Map();
  for (const n of nodes) for (const dep of n.requires) append(dependents, dep, n.id);
  const status = new Map(nodes.map((n) => [n.id, n.status]));
  const out = /* @__PURE__ */ new Map();
  for (const n of nodes.filter((n2) => n2.status === "failed")) {
    const seen = /* @__PURE__ */ new Set();
    const queue = [...dependents.get(n.id) ?? []];
    while (queue.length > 0) {
      const id = queue.pop();
      if (seen.has(id) || status.get(id) !== "blocked") continue;
      seen.add(id);
      queue.push(...dependents.get(id) ?? []);
    }
    out.set(n.id, seen.size);
  }
  return out;
}
function number(n) {
  return grouped(n);
}
function plural2(n, one, many = `${one}s`) {
  return `${number(n)} ${n === 1 ? one : many}`;
}
function wavesText(waves) {
  return waves.first === waves.last ? `wave ${waves.first}` : `waves ${waves.first}\u2013${waves.last}`;
}
function statusesText(counts, only) {
  if (counts.every((c) => c.status === only)) return "";
  return counts.map((c) => `${number(c.count)} ${c.status}`).join(", ");
}
function causeExtent(cause, quote = (id) => id) {
  const roots = statusesText(cause.rootStatuses, "run");
  const down = statusesText(cause.downstreamStatuses, "run");
  const only = cause.roots.length === 1 ? cause.roots[0].id : void 0;
  const head = only !== void 0 && !cause.name.some((p) => typeof p !== "string" && p.code === only) ? quote(only) : plural2(cause.roots.length, "pair");
  const tail = cause.downstream.length > 0 ? ` + ${number(cause.downstream.length)} downstream${down ? ` (${down})` : ""}` : "";
  const templates = cause.templates.length > 0 ? ` \xB7 ${cause.templates.map((t) => `${quote(`${t.template}[*]`)} ${number(t.count)}`).join(", ")}` : "";
  return `${head}${roots ? ` (${roots})` : ""}${tail} \xB7 ${wavesText(cause.waves)}${templates}`;
}
function rootsDiffer(cause) {
  return cause.roots.some((r) => r.downstream > 0) || cause.rootStatuses.length > 1;
}
function planNodes(plan) {
  return plan.pairs.map((p) => node(plan, p, p.action));
}
function runNodes(plan, report) {
  const outcomes = new Map(report.pairs.map((o) => [o.id, o]));
  const nodes = [];
  for (const p of plan.pairs) {
    const o = outcomes.get(p.id);
    if (o) nodes.push(node(plan, p, o.status));
  }
  return nodes;
}
function node(plan, p, status) {
  const pair = plan.workflow.pairs?.get(p.id);
  const template = pair?.template;
  const piece = pair?.piece;
  return {
    id: p.id,
    requires: p.requires,
    status,
    reasons: p.action === "run" ? p.reasons : [],
    planned: p.action === "run",
    wave: p.wave,
    ...template !== void 0 ? { template } : {},
    ...piece !== void 0 ? { section: { file: piece.file, heading: headingOf(piece) } } : {},
    ...pair?.assembly !== void 0 ? { assembly: true } : {}
  };
}
function headingOf(piece) {
  const first = piece.text.slice(0, piece.text.indexOf("\n") === -1 ? void 0 : piece.text.indexOf("\n"));
  const heading = /^ {0,3}#{1,6}\s+(.*?)(\s+#+)?\s*$/.exec(first)?.[1];
  return heading || piece.id;
}
function changesFor(cause, changes, templateOf) {
  const entry = (kind2, id) => changes.find((c) => c.kind === kind2 && c.id === id);
  const [kind, subject = ""] = cause.key.split("\0");
  const found = [];
  switch (kind) {
    case "context":
      found.push(entry("workflow", null));
      break;
    case "prompt":
      found.push(entry("prompt", subject));
      break;
    case "file":
      found.push(entry("file", subject));
      break;
    case "section":
      found.push(entry("section", subject));
      break;
    case "new": {
      const name = templateOf(subject) ?? subject;
      found.push(entry("pair", name), entry("prompt", name));
      break;
    }
    case "model":
    case "guard":
    case "guard_config":
    case "generator":
    case "generator_config":
    case "requires":
      found.push(entry("pair", subject) ?? entry("workflow", null));
      break;
  }
  return found.filter((c) => c !== void 0);
}

// src/report/causesText.ts
var MAX_ROOT_LINES = 5;
var MAX_NAMED = 5;
function causeLines(causes, style, budget) {
  const lines = [];
  const shown = causes.length > budget ? causes.slice(0, Math.max(0, budget - 1)) : causes;
  let spare = budget - shown.length - (shown.length < causes.length ? 1 : 0);
  for (const cause of shown) {
    const why = cause.failed > 0 ? style.red(nameFor(cause.why, "terminal")) : style.bold(nameFor(cause.why, "terminal"));
    lines.push(`  ${why}  ${causeExtent(cause, (id) => nameFor(id, "terminal"))}`);
    if (cause.roots.length < 2 || spare <= 0) continue;
    if (!rootsDiffer(cause) || spare === 1) {
      const named = cause.roots.slice(0, MAX_NAMED).map((r) => nameFor(r.id, "terminal"));
      const more = cause.roots.length - named.length;
      lines.push(style.dim(`    ${named.join(", ")}${more > 0 ? ` and ${number(more)} more` : ""}`));
      spare--;
      continue;
    }
    const room = Math.min(spare, MAX_ROOT_LINES);
    const listed2 = cause.roots.length > room ? cause.roots.slice(0, room - 1) : cause.roots;
    const width = Math.min(40, Math.max(...listed2.map((r) => nameFor(r.id, "terminal").length)));
    const waveWidth = Math.max(...listed2.map((r) => String(r.wave).length));
    for (const r of listed2) {
      const status = r.status === "run" ? "" : `  ${r.status === "failed" ? style.red(r.status) : r.status}`;
      const down = r.downstream > 0 ? style.dim(`  + ${number(r.downstream)} downstream`) : "";
      lines.push(`    ${nameFor(r.id, "terminal").padEnd(width)}  ${style.dim(`wave ${String(r.wave).padEnd(waveWidth)}`)}${status}${down}`);
    }
    if (listed2.length < cause.roots.length) lines.push(style.dim(`    \u2026 and ${plural2(cause.roots.length - listed2.length, "more pair")}`));
    spare -= Math.min(room, cause.roots.length);
  }
  if (shown.length < causes.length) lines.push(style.dim(`  \u2026 and ${plural2(causes.length - shown.length, "more cause")}`));
  return lines;
}
function failureLines(failures, style, max) {
  const shown = failures.length > max ? failures.slice(0, Math.max(0, max - 1)) : failures;
  const lines = shown.map((f) => {
    const blocked = f.blocked > 0 ? style.dim(` (blocked ${plural2(f.blocked, "pair")})`) : "";
    return `  ${style.red("\u2716")} ${nameFor(f.id, "terminal")}${blocked}: ${f.headline}`;
  });
  if (shown.length < failures.length) lines.push(style.dim(`  \u2026 and ${plural2(failures.length - shown.length, "more failed pair")}`));
  return lines;
}

// src/report/plan.ts
function planJson(plan, cwd = process.cwd(), estimate) {
  const json = planJsonStream(plan, cwd, estimate);
  return { ...json, pairs: [...json.pairs] };
}
function planJsonStream(plan, cwd = process.cwd(), estimate) {
  return {
    version: 1,
    workflow: { name: plan.workflow.name, path: displayPath(plan.workflow.path, cwd), workflowRef: plan.workflowRef },
    waves: plan.graph.waves.map((w) => [...w]),
    pairs: (function* () {
      for (const p of plan.pairs) yield pairJson(plan, p, estimate);
    })(),
    ...plan.removed && plan.removed.length > 0 ? { removed: [...plan.removed] } : {},
    totals: { ...totals(plan), ...estimate ? { estimate: totalsEstimateJson(estimate) } : {} }
  };
}
function pairJson(plan, p, estimate) {
  const template = plan.workflow.pairs.get(p.id)?.template;
  return {
    id: p.id,
    ...template !== void 0 ? { template } : {},
    wave: p.wave,
    // Shared with the plan, not copied: the JSON is written out, never changed.
    requires: p.requires,
    configRef: p.configRef,
    action: p.action,
    reasons: p.reasons,
    ...p.reuse ? { reuse: p.reuse } : {},
    ...estimate ? { estimate: pairEstimateJson(estimate, p.id) } : {}
  };
}
function* planJsonText(json) {
  const { version, workflow, waves, pairs, totals: totals2, ...rest } = json;
  let piece = `{
  "version": ${JSON.stringify(version)},
  "workflow": ${JSON.stringify(workflow)},
  "waves": ${list(waves)},
  "pairs": [`;
  let first = true;
  for (const pair of pairs) {
    piece += `${first ? "" : ","}
    ${JSON.stringify(pair)}`;
    first = false;
    if (piece.length >= PIECE_LENGTH) {
      yield piece;
      piece = "";
    }
  }
  piece += `${first ? "]" : "\n  ]"},
  "totals": ${JSON.stringify(totals2)}`;
  for (const [key, value] of Object.entries(rest)) piece += `,
  ${JSON.stringify(key)}: ${JSON.stringify(value)}`;
  yield `${piece}
}
`;
}
var PIECE_LENGTH = 32 * 1024;
function list(items) {
  return items.length === 0 ? "[]" : `[
${items.map((item) => `    ${JSON.stringify(item)}`).join(",\n")}
  ]`;
}
var MAX_DETAILS = 3;
function reasonsText(pair) {
  if (pair.action === "skip") {
    if (pair.stale) return "a person's edit kept, though its sources changed since (carry_edits: true carries it forward)";
    if (pair.artifact?.source === "workspace") return "output edited by hand; kept as accepted (delete the file to regenerate it)";
    if (pair.artifact?.edited) return "unchanged (output edited by hand; kept as accepted)";
    return pair.artifact?.source === "remote" ? "unchanged (accepted artifact in the remote store)" : "unchanged";
  }
  const shown = pair.reasons.slice(0, MAX_DETAILS).map((r) => r.kind === r.detail ? r.kind : `${r.kind}: ${r.detail}`);
  const more = pair.reasons.length - shown.length;
  return shown.join("; ") + (more > 0 ? `; and ${more} more` : "");
}
function withoutCalls(plan) {
  return plan.pairs.filter((p) => p.action === "run" && (p.reuse?.kind === "request" || p.reuse?.kind === "rejudge") && pairCallsModel(plan, p.id)).length;
}
function withoutCallsText(plan) {
  const n = withoutCalls(plan);
  return n === 0 ? "" : ` (${grouped(n)} with no model call: ${n === 1 ? "its request was" : "their requests were"} answered before)`;
}
function pairCallsModel(plan, id) {
  const pair = plan.workflow.pairs?.get(id);
  return pair === void 0 || callsModel(pair);
}
function reuseText(pair, calls = true) {
  const reuse = pair.reuse;
  if (reuse === void 0) return "";
  if (reuse.kind === "request") return `request answered before${calls ? ": no model call" : ""}`;
  if (reuse.kind === "rejudge")
    return calls ? "re-judge: no model call if the guard accepts what the same request returned" : "re-judge: the guard judges what the same request returned";
  if (!calls) return "";
  if (reuse.kind !== "unless") return "";
  return `no model call if ${reuse.deps.join(", ")} ${reuse.deps.length === 1 ? "reproduces its" : "reproduce their"} content`;
}
var SCREEN_LINES = 40;
function planText(plan, style, cwd = process.cwd(), estimate, options = {}) {
  const estimateLines = estimate && estimate.pairs.length > 0 ? estimate.pairs.length + 4 + estimateNotes(estimate, options.all).length : 0;
  if (options.all || listLines(plan) + estimateLines <= SCREEN_LINES) return fitLines(planListText(plan, style, cwd, estimate, options.all), options.columns);
  const t = totals(plan);
  const lines = [planHeader(plan, style, cwd)];
  const removed = removedLine(plan, style);
  const network = networkLine(plan, style);
  const tail = [
    "",
    totalsLine(plan, style),
    ...network ? [network] : [],
    ...estimate && estimate.pairs.length > 0 ? [style.bold(`Estimate for ${estimateHeadline(estimate, t.run)}`)] : [],
    style.dim(`${options.more ?? "pairflow plan --all lists every pair, by wave"}.`)
  ];
  if (t.run > 0) {
    const budget = SCREEN_LINES - lines.length - 2 - (removed ? 2 : 0) - tail.length;
    lines.push("", style.bold("Will run, by cause"), ...causeLines(causesOf(planNodes(plan)), style, budget));
  }
  if (removed) lines.push("", removed);
  lines.push(...tail);
  return fitLines(lines.join("\n") + "\n", options.columns);
}
function planHeader(plan, style, cwd) {
  const where = displayPath(plan.workflow.path, cwd);
  return style.bold(`Plan for "${nameFor(plan.workflow.name, "terminal")}"`) + style.dim(` (${nameFor(where, "terminal")}): ${plural2(totals(plan).pairs, "pair")} in ${plural2(plan.graph.waves.length, "wave")}`);
}
function totalsLine(plan, style) {
  const t = totals(plan);
  const removed = plan.removed ?? [];
  return style.bold(
    `${number(t.run)} to run${withoutCallsText(plan)}, ${number(t.skip)} unchanged` + (removed.length > 0 ? `, ${number(removed.length)} removed` : "")
  );
}
function removedLine(plan, style) {
  const removed = plan.removed ?? [];
  if (removed.length === 0) return void 0;
  return `${style.bold("Removed")} (no longer in the workflow; the run drops them from the lock file): ${removedText(removed)}`;
}
function listLines(plan) {
  const templates = /* @__PURE__ */ new Map();
  let lines = 1 + 2 * plan.graph.waves.length + 2 + ((plan.removed ?? []).length > 0 ? 2 : 0);
  for (const p of plan.pairs) {
    const template = plan.workflow.pairs?.get(p.id)?.template;
    if (template === void 0) {
      lines++;
      continue;
    }
    const key = `${p.wave} ${template}`;
    const group = templates.get(key) ?? { wave: p.wave, run: 0, all: 0 };
    group.all++;
    if (p.action === "run") group.run++;
    templates.set(key, group);
  }
  for (const g of templates.values()) lines += g.all < 2 ? 1 : 1 + g.run;
  return lines;
}
function planListText(plan, style, cwd = process.cwd(), estimate, all = false) {
  const t = totals(plan);
  const lines = [planHeader(plan, style, cwd)];
  const templateOf = (p) => plan.workflow.pairs.get(p.id)?.template;
  const width = Math.min(40, Math.max(0, ...plan.pairs.map((p) => nameFor(p.id, "terminal").length)));
  const line = (p, indent) => {
    const action = p.action === "run" ? style.yellow("run ") : style.green("skip");
    const reuse = reuseText(p, pairCallsModel(plan, p.id));
    return `${indent}${action}  ${nameFor(p.id, "terminal").padEnd(width)}  ${style.dim(shortRef(p.configRef).padEnd(12))}  ${nameFor(reasonsText(p), "terminal")}${reuse ? style.dim(` (${nameFor(reuse, "terminal")})`) : ""}`;
  };
  for (const [wave, pairs] of byWave(plan.pairs)) {
    lines.push("", style.bold(`Wave ${wave}`));
    const groups = /* @__PURE__ */ new Map();
    for (const p of pairs) {
      const template = templateOf(p);
      if (template === void 0) continue;
      const group = groups.get(template);
      if (group) group.push(p);
      else groups.set(template, [p]);
    }
    const shown = /* @__PURE__ */ new Set();
    for (const p of pairs) {
      const template = templateOf(p);
      const group = template === void 0 ? void 0 : groups.get(template);
      if (group === void 0 || group.length < 2) {
        lines.push(line(p, "  "));
        continue;
      }
      if (shown.has(template)) continue;
      shown.add(template);
      const run = group.filter((g) => g.action === "run");
      const counts = [
        run.length > 0 ? style.yellow(`${run.length} run`) : "",
        run.length < group.length ? style.green(`${group.length - run.length} unchanged`) : ""
      ];
      lines.push(`  ${style.bold(`${nameFor(template, "terminal")}[*]`)}  ${counts.filter(Boolean).join(", ")}`);
      const shownPairs = group.filter((g) => g.action === "run" || g.stale);
      for (const [file, pieces] of byFile(plan, template, group, shownPairs)) {
        if (file !== void 0) lines.push(`    ${style.bold(nameFor(pieces.heading, "terminal"))}  ${pieces.count}`);
        for (const r of pieces.shown) lines.push(line(r, file === void 0 ? "    " : "      "));
      }
    }
  }
  const removed = removedLine(plan, style);
  if (removed) lines.push("", removed);
  lines.push("", totalsLine(plan, style));
  const network = networkLine(plan, style);
  if (network) lines.push(network);
  if (estimate && estimate.pairs.length > 0) lines.push("", estimateText(estimate, style, { running: t.run, all }).trimEnd());
  return lines.join("\n") + "\n";
}
function networkLine(plan, style) {
  const guarded = (id) => {
    const pair = plan.workflow.pairs?.get(id);
    return pair !== void 0 && commandNetwork(pair).some((c) => c.command === "guard" && c.network);
  };
  const ids = plan.pairs.filter((p) => p.action === "run" && guarded(p.id)).map((p) => p.id);
  if (ids.length === 0) return void 0;
  const named = ids.slice(0, 5).map((id) => nameFor(id, "terminal")).join(", ") + (ids.length > 5 ? ` and ${number(ids.length - 5)} more` : "");
  return style.dim(`Guards with the network (network: true): ${named}`);
}
var PIECE_NOUN = { markdown: "section", json: "key", yaml: "key", regex: "piece" };
function byFile(plan, template, group, shown) {
  const out = /* @__PURE__ */ new Map();
  const fileOf = (p) => plan.workflow.pairs.get(p.id)?.piece?.file;
  for (const p of shown) {
    const file = fileOf(p);
    let entry = out.get(file);
    if (!entry) {
      const split = file === void 0 ? void 0 : plan.workflow.pairs.get(instanceId(template, file))?.assembly?.split.kind;
      const all = file === void 0 ? 0 : group.filter((g) => fileOf(g) === file).length;
      const running = file === void 0 ? 0 : group.filter((g) => fileOf(g) === file && g.action === "run").length;
      const noun = PIECE_NOUN[split ?? "regex"];
      entry = { heading: file === void 0 ? "" : instanceId(template, file), count: `${running} of ${count(all, noun)} to run`, shown: [] };
      out.set(file, entry);
    }
    entry.shown.push(p);
  }
  return out;
}
function byWave(pairs) {
  const waves = /* @__PURE__ */ new Map();
  for (const p of pairs) {
    const wave = waves.get(p.wave);
    if (wave) wave.push(p);
    else waves.set(p.wave, [p]);
  }
  return waves;
}
var MAX_REMOVED = 10;
function removedText(ids) {
  const named = ids.slice(0, MAX_REMOVED).map((id) => nameFor(id, "terminal")).join(", ");
  return ids.length > MAX_REMOVED ? `${named} and ${ids.length - MAX_REMOVED} more` : named;
}
function count(n, noun) {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}
function planCheck(plan, lockFile) {
  const stale = plan.pairs.filter((p) => {
    const artifact = p.artifact;
    if (p.action !== "skip" || artifact === null || artifact.edited || artifact.source === "workspace") return false;
    const output = plan.workflow.pairs.get(p.id)?.output;
    return output !== void 0 && artifact.content !== "output" || lockFile && artifact.source !== "lock";
  }).map((p) => p.id);
  return { run: totals(plan).run, stale, removed: lockFile ? (plan.removed ?? []).length : 0 };
}
function checkFails(check) {
  return check.run > 0 || check.stale.length > 0 || check.removed > 0;
}
function checkText(check, style) {
  if (!checkFails(check)) return style.green("check: nothing would run, and every output is current") + "\n";
  const parts = [
    check.run > 0 ? `${plural2(check.run, "pair")} would run` : "",
    check.stale.length > 0 ? `${plural2(check.stale.length, "pair")} would write ${check.stale.length === 1 ? "its" : "their"} stale output (${removedText(check.stale)})` : "",
    check.removed > 0 ? `${plural2(check.removed, "removed pair")} would leave the lock file` : ""
  ].filter(Boolean);
  return style.yellow(`check: ${parts.join(", ")}; exit status 3`) + "\n";
}

export {
  fitLines,
  md,
  code,
  longestRun,
  bytes,
  totalCostText,
  plural,
  estimateTotal,
  estimateHeadline,
  estimateText,
  compareWithRun,
  comparisonText,
  failureHeadline,
  isAffected,
  GRAPH_NODE_LIMIT,
  affectedSubgraph,
  reach,
  causesOf,
  nameIn,
  waveRange,
  append,
  failuresOf,
  blockedBy,
  number,
  plural2,
  wavesText,
  causeExtent,
  rootsDiffer,
  planNodes,
  runNodes,
  changesFor,
  causeLines,
  failureLines,
  planJson,
  planJsonStream,
  planJsonText,
  reasonsText,
  withoutCallsText,
  SCREEN_LINES,
  planText,
  count,
  planCheck,
  checkFails,
  checkText
};
