#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import {
  CHARS_PER_TOKEN,
  DEFAULT_OUTPUT_TOKENS,
  costOf,
  totals,
  usd
} from "./cli-chunk-5ZWDE2EE.js";
import {
  displayPath,
  shortRef
} from "./cli-chunk-YFM4J6CT.js";

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
function totalCostText(estimate) {
  const t = estimate.totals;
  if (t.cost !== null) return usd(t.cost);
  const unknown = estimate.pairs.filter((p) => p.cost === null).length;
  return unknown === estimate.pairs.length ? "cost unknown" : `${usd(t.knownCost)} + cost unknown for ${plural(unknown, "pair")}`;
}
function plural(n, noun) {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}
function estimateTotal(estimate) {
  const t = estimate.totals;
  return `${tokensText(t.tokens.input + t.tokens.output)} tokens, ${totalCostText(estimate)}`;
}
function estimateHeadline(estimate) {
  return `${plural(estimate.totals.pairs, "pair")} to run: ${estimateTotal(estimate)}`;
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
function estimateNotes(estimate) {
  const notes = [];
  const ids = (f) => estimate.pairs.filter(f).map((p) => p.id);
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
  for (const p of estimate.pairs) for (const note of p.notes) notes.push(`${p.id}: ${note}`);
  return notes;
}
function estimateText(estimate, style) {
  if (estimate.pairs.length === 0) return style.bold("Estimate: nothing to run, no cost") + "\n";
  const table = [HEADER, ...rows(estimate)];
  const keys = Object.keys(HEADER);
  const right = /* @__PURE__ */ new Set(["input", "output", "attempts", "tokens"]);
  const widths = keys.map((k) => Math.max(...table.map((r) => r[k].length)));
  const lines = [style.bold(`Estimate for ${estimateHeadline(estimate)}`)];
  table.forEach((r, n) => {
    const line = "  " + keys.map((k, i) => right.has(k) && n > 0 ? r[k].padStart(widths[i]) : r[k].padEnd(widths[i])).join("  ").trimEnd();
    lines.push(n === 0 || n === table.length - 1 ? style.bold(line) : line);
  });
  for (const note of estimateNotes(estimate)) lines.push(style.dim(`  - ${note}`));
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
    return {
      id: e.id,
      status: outcome?.status ?? "not run",
      estimated: { tokens: { ...e.tokens }, cost: e.cost },
      actual: { tokens, cost: tokens && e.price ? costOf(tokens, e.price) : null }
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
function withoutCalls(pairs) {
  return pairs.filter((p) => p.action === "run" && (p.reuse?.kind === "request" || p.reuse?.kind === "rejudge")).length;
}
function withoutCallsText(pairs) {
  const n = withoutCalls(pairs);
  return n === 0 ? "" : ` (${n.toLocaleString("en-US")} with no model call: ${n === 1 ? "its request was" : "their requests were"} answered before)`;
}
function reuseText(pair) {
  const reuse = pair.reuse;
  if (reuse === void 0) return "";
  if (reuse.kind === "request") return "request answered before: no model call";
  if (reuse.kind === "rejudge") return "re-judge: no model call if the guard accepts what the same request returned";
  if (reuse.kind !== "unless") return "";
  return `no model call if ${reuse.deps.join(", ")} ${reuse.deps.length === 1 ? "reproduces its" : "reproduce their"} content`;
}
function planText(plan, style, cwd = process.cwd(), estimate) {
  const t = totals(plan);
  const lines = [];
  const where = displayPath(plan.workflow.path, cwd);
  lines.push(style.bold(`Plan for "${plan.workflow.name}"`) + style.dim(` (${where}): ${count(t.pairs, "pair")} in ${count(plan.graph.waves.length, "wave")}`));
  const templateOf = (p) => plan.workflow.pairs.get(p.id)?.template;
  const width = Math.min(40, Math.max(0, ...plan.pairs.map((p) => p.id.length)));
  const line = (p, indent) => {
    const action = p.action === "run" ? style.yellow("run ") : style.green("skip");
    const reuse = reuseText(p);
    return `${indent}${action}  ${p.id.padEnd(width)}  ${style.dim(shortRef(p.configRef).padEnd(12))}  ${reasonsText(p)}${reuse ? style.dim(` (${reuse})`) : ""}`;
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
      lines.push(`  ${style.bold(`${template}[*]`)}  ${counts.filter(Boolean).join(", ")}`);
      for (const r of group.filter((g) => g.action === "run" || g.stale)) lines.push(line(r, "    "));
    }
  }
  const removed = plan.removed ?? [];
  if (removed.length > 0)
    lines.push("", `${style.bold("Removed")} (no longer in the workflow; the run drops them from the lock file): ${removedText(removed)}`);
  lines.push("", style.bold(`${t.run} to run${withoutCallsText(plan.pairs)}, ${t.skip} unchanged` + (removed.length > 0 ? `, ${removed.length} removed` : "")));
  if (estimate && estimate.pairs.length > 0) lines.push("", estimateText(estimate, style).trimEnd());
  return lines.join("\n") + "\n";
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
  const shown = ids.slice(0, MAX_REMOVED).join(", ");
  return ids.length > MAX_REMOVED ? `${shown} and ${ids.length - MAX_REMOVED} more` : shown;
}
function count(n, noun) {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

export {
  plural,
  estimateTotal,
  estimateHeadline,
  estimateText,
  compareWithRun,
  comparisonText,
  planJson,
  planJsonStream,
  planJsonText,
  reasonsText,
  withoutCallsText,
  planText,
  count
};
