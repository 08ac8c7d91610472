/**
 * Estimates as people read them (terminal text, Markdown for a job summary or a pull-request
 * comment) and as programs read them (fields added to `plan --json` and `run --json`), and the
 * comparison of an estimate with what a run actually spent. Pure functions of their arguments.
 */
import type { Style } from "./color.js";
import { md } from "./markdown.js";
import { nameFor } from "./names.js";
import type { PairStatus, RunReport } from "../model/run.js";
import type { TokenUsage } from "../model/records.js";
import { DEFAULT_OUTPUT_TOKENS, type PairEstimate, type PlanEstimate } from "../estimate/estimate.js";
import { costOf, usd } from "../estimate/prices.js";
import { CHARS_PER_TOKEN } from "../estimate/tokens.js";
import { columns, padColumns } from "./fit.js";
import { grouped } from "../model/text.js";

// ---------------------------------------------------------------------------------------------
// Numbers

/** A count of tokens, rounded and grouped by thousands (without a locale's number format: 20 ms of ICU per process). */
export function tokensText(n: number): string {
  return grouped(Math.round(n));
}

function attemptsText(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(1);
}

function costText(cost: number | null): string {
  return cost === null ? "cost unknown" : usd(cost);
}

/** Ids, the first ten, then how many more. */
function listed(ids: string[]): string {
  return ids.length <= 10 ? ids.join(", ") : `${ids.slice(0, 10).join(", ")} and ${ids.length - 10} more`;
}

/** "$0.012", "cost unknown", or "$0.012 + cost unknown for 2 pairs" when only some are priced. */
export function totalCostText(estimate: PlanEstimate): string {
  const t = estimate.totals;
  if (t.cost !== null) return usd(t.cost);
  const unknown = estimate.pairs.filter((p) => p.cost === null).length;
  return unknown === estimate.pairs.length ? "cost unknown" : `${usd(t.knownCost)} + cost unknown for ${plural(unknown, "pair")}`;
}

export function plural(n: number, noun: string): string {
  return `${tokensText(n)} ${noun}${n === 1 ? "" : "s"}`;
}

// ---------------------------------------------------------------------------------------------
// The estimate

/** "4,028 tokens, cost unknown", "3,100 tokens, $0.0021". */
export function estimateTotal(estimate: PlanEstimate): string {
  const t = estimate.totals;
  return `${tokensText(t.tokens.input + t.tokens.output)} tokens, ${totalCostText(estimate)}`;
}

/**
 * One line: "3 pairs to run: 4,028 tokens, cost unknown". Given how many pairs the plan runs, it
 * says so when the estimate holds fewer (pairs that call no model are left out of it): "the 3 of
 * 525 pairs to run that call a model: …", "none of the 525 pairs to run calls a model: no cost".
 */
export function estimateHeadline(estimate: PlanEstimate, running = estimate.totals.pairs): string {
  const n = estimate.totals.pairs;
  if (n === 0) return running === 0 ? "nothing to run, no cost" : `none of the ${tokensText(running)} pairs to run calls a model: no cost`;
  if (n < running) return `the ${tokensText(n)} of ${tokensText(running)} pairs to run that call a model: ${estimateTotal(estimate)}`;
  return `${plural(n, "pair")} to run: ${estimateTotal(estimate)}`;
}

interface Row {
  pair: string;
  model: string;
  input: string;
  output: string;
  attempts: string;
  tokens: string;
  cost: string;
}

const HEADER: Row = { pair: "pair", model: "model", input: "input", output: "output", attempts: "attempts", tokens: "tokens", cost: "cost" };

function rows(estimate: PlanEstimate): Row[] {
  const list = estimate.pairs.map((p) => ({
    pair: p.id,
    model: p.model ?? "-",
    input: (p.tokenizer === "approximate" && p.outputBasis !== "none" ? "~" : "") + tokensText(p.inputTokens),
    output: tokensText(p.outputTokens),
    attempts: attemptsText(p.attempts),
    tokens: tokensText(p.tokens.input + p.tokens.output),
    cost: costText(p.cost),
  }));
  const t = estimate.totals;
  list.push({
    pair: "total",
    model: "",
    input: "",
    output: "",
    attempts: "",
    tokens: tokensText(t.tokens.input + t.tokens.output),
    cost: totalCostText(estimate),
  });
  return list;
}

/** Ids named in one note, at most; per-pair notes shown, at most (`all`: every one). */
const MAX_NOTE_IDS = 10;
const MAX_PAIR_NOTES = 10;

/**
 * How the numbers were made: tokenizers, output and attempt bases, prices, and per-pair notes.
 * A note names at most 10 pairs and counts the rest, and at most 10 per-pair notes are given,
 * unless `all`: at 1,000 pairs to run they were 1,000 names on a line, and a line per dependency.
 */
export function estimateNotes(estimate: PlanEstimate, all = false): string[] {
  const notes: string[] = [];
  const ids = (f: (p: PairEstimate) => boolean) => {
    const list = estimate.pairs.filter(f).map((p) => p.id);
    const shown = all ? list : list.slice(0, MAX_NOTE_IDS);
    return list.length > shown.length ? [...shown.slice(0, -1), `${shown[shown.length - 1]} and ${tokensText(list.length - shown.length)} more`] : shown;
  };
  const models = (f: (p: PairEstimate) => boolean) => [...new Set(estimate.pairs.filter(f).map((p) => p.model ?? "(no model)"))].join(", ");
  const some = (f: (p: PairEstimate) => boolean) => estimate.pairs.some(f);

  notes.push("input and output are per attempt; tokens is (input + output) × attempts");
  if (some((p) => p.tokenizer === "o200k_base")) notes.push(`input counted with the o200k_base tokenizer for ${models((p) => p.tokenizer === "o200k_base")}`);
  if (some((p) => p.tokenizer === "approximate" && p.outputBasis !== "none")) {
    notes.push(
      `~ approximate input: characters / ${CHARS_PER_TOKEN}, as pairflow has no tokenizer for ${models((p) => p.tokenizer === "approximate" && p.outputBasis !== "none")}`,
    );
  }
  const output: string[] = [];
  if (some((p) => p.outputBasis === "history")) output.push(`median of past accepted attempts for ${ids((p) => p.outputBasis === "history").join(", ")}`);
  if (some((p) => p.outputBasis === "max_tokens")) output.push(`generator_config.max_tokens for ${ids((p) => p.outputBasis === "max_tokens").join(", ")}`);
  if (some((p) => p.outputBasis === "default"))
    output.push(`${tokensText(DEFAULT_OUTPUT_TOKENS)} by default (no history, no max_tokens) for ${ids((p) => p.outputBasis === "default").join(", ")}`);
  if (output.length > 0) notes.push(`output: ${output.join("; ")}`);
  const attempts: string[] = [];
  if (some((p) => p.attemptsBasis === "history")) attempts.push(`median of past accepted runs for ${ids((p) => p.attemptsBasis === "history").join(", ")}`);
  if (some((p) => p.attemptsBasis === "default")) attempts.push(`1 (no history) for ${ids((p) => p.attemptsBasis === "default").join(", ")}`);
  if (attempts.length > 0) notes.push(`attempts: ${attempts.join("; ")}`);
  const prices: string[] = [];
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
      `prompt cache: ${tokensText(read)} input tokens expected from it at the cached-input price${written > 0 ? `, ${tokensText(written)} written to it` : ""}, ` +
        `as ${plural(ids((p) => (p.tokens.cacheRead ?? 0) + (p.tokens.cacheWrite ?? 0) > 0).length, "pair")} begin alike (the workflow's context, their role and constraints, leading dependencies)`,
    );
  }
  for (const e of estimate.paced ?? []) {
    const limits = [
      e.tokensPerMinute === undefined ? "" : `${tokensText(e.tokensPerMinute)} tokens`,
      e.requestsPerMinute === undefined ? "" : `${tokensText(e.requestsPerMinute)} requests`,
    ]
      .filter((x) => x !== "")
      .join(", ");
    const takes = e.ms < 60_000 ? "within the first minute" : `about ${Math.ceil(e.ms / 60_000)} min`;
    notes.push(
      `at ${limits}/min (the rate_limit of ${e.endpoint}${e.model === null ? "" : `, ${e.model}`}): ${takes} for ${plural(Math.ceil(e.calls), "call")}`,
    );
  }
  const perPair = estimate.pairs.flatMap((p) => p.notes.map((note) => `${p.id}: ${note}`));
  const shown = all ? perPair : perPair.slice(0, MAX_PAIR_NOTES);
  notes.push(...shown);
  if (shown.length < perPair.length) notes.push(`and ${tokensText(perPair.length - shown.length)} more notes on single pairs (plan --json has each pair's)`);
  return notes;
}

/**
 * The estimate for a terminal: a headline, a table of the pairs to run, and the notes (every one
 * with `all`). `running`: how many pairs the plan runs, when the estimate may hold fewer.
 */
export function estimateText(estimate: PlanEstimate, style: Style, options: { running?: number; all?: boolean } = {}): string {
  if (estimate.pairs.length === 0) return style.bold(`Estimate: ${estimateHeadline(estimate, options.running ?? 0)}`) + "\n";
  const table = [HEADER, ...rows(estimate).map((r) => ({ ...r, pair: nameFor(r.pair, "terminal"), model: nameFor(r.model, "terminal") }))];
  const keys = Object.keys(HEADER) as (keyof Row)[];
  const right = new Set<keyof Row>(["input", "output", "attempts", "tokens"]);
  const widths = keys.map((k) => Math.max(...table.map((r) => columns(r[k]))));
  const lines = [style.bold(`Estimate for ${estimateHeadline(estimate, options.running)}`)];
  table.forEach((r, n) => {
    const line =
      "  " +
      keys
        .map((k, i) => (right.has(k) && n > 0 ? r[k].padStart(widths[i]!) : padColumns(r[k], widths[i]!)))
        .join("  ")
        .trimEnd();
    lines.push(n === 0 || n === table.length - 1 ? style.bold(line) : line);
  });
  for (const note of estimateNotes(estimate, options.all)) lines.push(style.dim(`  - ${nameFor(note, "terminal")}`));
  return lines.join("\n") + "\n";
}

/**
 * The estimate as Markdown, for a GitHub job summary or a pull-request comment: `pair | model |
 * tokens | cost`, four columns to fit GitHub's column, with each pair's input, output and attempts
 * in a collapsed table under it.
 */
export function estimateMarkdown(estimate: PlanEstimate, running?: number): string {
  if (estimate.pairs.length === 0) return `**Estimate:** ${estimateHeadline(estimate, running ?? 0)}\n`;
  const cell = (s: string) => s.replace(/\|/g, "\\|");
  const table = (cells: (r: Row) => string[]) =>
    rows(estimate).map((r, i, all) => {
      const row = cells(r).map(cell);
      if (i === all.length - 1) return `| ${row.map((c) => (c ? `**${c}**` : "")).join(" | ")} |`;
      return `| ${nameFor(r.pair, "cell")} | ${row.slice(1).join(" | ")} |`;
    });
  const lines = [
    `**Estimate for ${estimateHeadline(estimate, running)}**`,
    "",
    "| pair | model | tokens | cost |",
    "| --- | --- | ---: | ---: |",
    ...table((r) => [r.pair, r.model, r.tokens, r.cost]),
    "",
    "<details><summary>Input, output and attempts of each pair</summary>",
    "",
    "| pair | input | output | attempts |",
    "| --- | ---: | ---: | ---: |",
    ...table((r) => [r.pair, r.input, r.output, r.attempts]),
    "",
    "</details>",
    "",
    ...estimateNotes(estimate).map((n) => `- ${md(n)}`),
  ];
  return lines.join("\n") + "\n";
}

// ---------------------------------------------------------------------------------------------
// JSON: fields added to `plan --json`

export type PairEstimateJson = Omit<PairEstimate, "id" | "spends">;

/** Each running pair's estimate by id: a plan looks every pair up once, so a scan each would be quadratic. */
const byIdOf = new WeakMap<PlanEstimate, Map<string, PairEstimate>>();

export function pairEstimateJson(estimate: PlanEstimate, id: string): PairEstimateJson | null {
  let byId = byIdOf.get(estimate);
  if (!byId) {
    byId = new Map(estimate.pairs.map((e) => [e.id, e]));
    byIdOf.set(estimate, byId);
  }
  const p = byId.get(id);
  if (!p) return null;
  // `spends` only decides whether run asks; it is not part of the JSON contract.
  const { id: _, spends: __, ...rest } = p;
  return { ...rest, tokens: { ...rest.tokens }, price: rest.price && { ...rest.price }, notes: [...rest.notes] };
}

export interface TotalsEstimateJson extends Omit<PlanEstimate["totals"], "tokens"> {
  tokens: TokenUsage;
  pricesAsOf: string;
}

export function totalsEstimateJson(estimate: PlanEstimate): TotalsEstimateJson {
  const t = estimate.totals;
  return {
    pairs: t.pairs,
    tokens: { ...t.tokens },
    cost: t.cost,
    knownCost: t.knownCost,
    unpricedModels: [...t.unpricedModels],
    pricesAsOf: estimate.pricesAsOf,
  };
}

// ---------------------------------------------------------------------------------------------
// Estimated against actual, after a run

export interface PairComparison {
  id: string;
  /** What happened to the pair; "not run" when the run ended before it. */
  status: PairStatus | "not run";
  estimated: { tokens: TokenUsage; cost: number | null };
  /** tokens null: the generator reported no usage (a command); cost null: unknown. */
  actual: { tokens: TokenUsage | null; cost: number | null };
}

export interface RunComparison {
  pairs: PairComparison[];
  totals: { estimated: { tokens: TokenUsage; cost: number | null }; actual: { tokens: TokenUsage | null; cost: number | null } };
}

/** Each estimated pair's estimate next to what its attempts in the run actually spent. */
export function compareWithRun(estimate: PlanEstimate, report: RunReport): RunComparison {
  const outcomes = new Map(report.pairs.map((o) => [o.id, o]));
  const pairs = estimate.pairs.map((e): PairComparison => {
    const outcome = outcomes.get(e.id);
    const attempts = outcome?.attempts ?? [];
    const reported = attempts.filter((a) => a.tokens !== null);
    let tokens: TokenUsage | null = null;
    if (attempts.length === 0)
      tokens = { input: 0, output: 0 }; // reused or never started: nothing spent
    else if (reported.length > 0) {
      tokens = { input: 0, output: 0 };
      for (const a of reported) {
        tokens.input += a.tokens!.input;
        tokens.output += a.tokens!.output;
      }
    }
    // Each attempt at the price it was bought at (a batch's, the prompt cache's).
    const cost = tokens && e.price ? reported.reduce((sum, a) => sum + costOf(a.tokens!, e.price!), 0) : null;
    return {
      id: e.id,
      status: outcome?.status ?? "not run",
      estimated: { tokens: { ...e.tokens }, cost: e.cost },
      actual: { tokens, cost },
    };
  });
  const sum = (list: (TokenUsage | null)[]): TokenUsage | null =>
    list.some((t) => t === null)
      ? null
      : list.reduce<TokenUsage>((s, t) => ({ input: s.input + t!.input, output: s.output + t!.output }), { input: 0, output: 0 });
  const total = (list: (number | null)[]): number | null => (list.some((c) => c === null) ? null : list.reduce<number>((s, c) => s + c!, 0));
  return {
    pairs,
    totals: {
      estimated: { tokens: sum(pairs.map((p) => p.estimated.tokens))!, cost: total(pairs.map((p) => p.estimated.cost)) },
      actual: { tokens: sum(pairs.map((p) => p.actual.tokens)), cost: total(pairs.map((p) => p.actual.cost)) },
    },
  };
}

function comparisonRows(c: RunComparison): string[][] {
  const tokens = (t: TokenUsage | null) => (t === null ? "not reported" : tokensText(t.input + t.output));
  const cost = (n: number | null, t?: TokenUsage | null) => (t === null ? "-" : costText(n));
  const list = c.pairs.map((p) => [
    p.id,
    p.status,
    tokens(p.estimated.tokens),
    tokens(p.actual.tokens),
    cost(p.estimated.cost),
    cost(p.actual.cost, p.actual.tokens),
  ]);
  const t = c.totals;
  list.push(["total", "", tokens(t.estimated.tokens), tokens(t.actual.tokens), cost(t.estimated.cost), cost(t.actual.cost, t.actual.tokens)]);
  return list;
}

const COMPARISON_HEADER = ["pair", "status", "est. tokens", "actual tokens", "est. cost", "actual cost"];

/** The comparison for a terminal, after the run summary. */
export function comparisonText(c: RunComparison, style: Style): string {
  if (c.pairs.length === 0) return "";
  const table = [COMPARISON_HEADER, ...comparisonRows(c)];
  const widths = COMPARISON_HEADER.map((_, i) => Math.max(...table.map((r) => columns(r[i]!))));
  const lines = [style.bold("Estimated against actual")];
  table.forEach((r, n) => {
    const line =
      "  " +
      r
        .map((cell, i) => (i >= 2 && n > 0 ? cell.padStart(widths[i]!) : padColumns(cell, widths[i]!)))
        .join("  ")
        .trimEnd();
    lines.push(n === 0 || n === table.length - 1 ? style.bold(line) : line);
  });
  if (c.pairs.some((p) => p.actual.tokens === null))
    lines.push(style.dim("  - not reported: the generator gave no token usage (a command generator, or a provider that sends none)"));
  return lines.join("\n") + "\n";
}

/**
 * The comparison as Markdown, for a GitHub job summary, in tables of four columns at most to fit
 * GitHub's column: in a priced run `pair | estimate | actual`, the costs, with each pair's status and
 * tokens in a collapsed table under it; when no cost is known, `pair | status | est. tokens | actual
 * tokens`.
 */
export function comparisonMarkdown(c: RunComparison): string {
  if (c.pairs.length === 0) return "";
  const all = comparisonRows(c);
  const table = (columns: number[], align: string) => [
    `| ${columns.map((i) => COMPARISON_HEADER[i]).join(" | ")} |`,
    align,
    ...all.map((r) => `| ${columns.map((i) => r[i]).join(" | ")} |`),
  ];
  const tokens = table([0, 1, 2, 3], "| --- | --- | ---: | ---: |");
  const priced = c.totals.estimated.cost !== null || c.pairs.some((p) => p.estimated.cost !== null || p.actual.cost !== null);
  if (!priced) return ["**Estimated against actual**", "", ...tokens].join("\n") + "\n";
  const lines = [
    "**Estimated against actual**",
    "",
    "| pair | estimate | actual |",
    "| --- | ---: | ---: |",
    ...all.map((r) => `| ${r[0]} | ${r[4]} | ${r[5]} |`),
    "",
    "<details><summary>Status and tokens of each pair</summary>",
    "",
    ...tokens,
    "",
    "</details>",
  ];
  return lines.join("\n") + "\n";
}
