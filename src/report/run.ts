/** A run as people follow it (a line per pair event, then a summary table) and as programs read it. */
import { shortRef } from "../refs/hash.js";
import type { BatchCounts, BatchEvent, PacingReport, PairOutcome, RunEvent, RunReport } from "../model/run.js";
import type { TokenUsage } from "../model/records.js";
import type { Style } from "./color.js";
import { count, SCREEN_LINES } from "./plan.js";
import type { Plan } from "../model/plan.js";
import { causesOf, failuresOf, runNodes } from "./causes.js";
import { causeLines, failureLines } from "./causesText.js";
import { failureHeadline } from "./failure.js";
import { spendLine } from "./spend.js";

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
import { visible } from "./visible.js";
import { nameFor } from "./names.js";
import { grouped } from "../model/text.js";
import { columns, fitLines, padColumns } from "./fit.js";

export function seconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)}s` : `${Math.round(ms / 1000)}s`;
}

/** Minutes and seconds from a minute on: 2m 17s. */
function minutes(ms: number): string {
  if (ms < 60_000) return seconds(ms);
  const total = Math.round(ms / 1000);
  return `${Math.floor(total / 60)}m ${total % 60}s`;
}

/** How the run's provider calls were paced: the limits they went by, how many waited and how long, and the 429s. */
export function pacingLine(pacing: PacingReport): string {
  const n = grouped;
  const limits = pacing.budgets
    .map((b) => {
      const per = [
        b.tokensPerMinute === undefined ? "" : `${n(b.tokensPerMinute)} tokens`,
        b.requestsPerMinute === undefined ? "" : `${n(b.requestsPerMinute)} requests`,
      ];
      const known = per.filter((x) => x !== "");
      return known.length === 0 ? "" : `${b.host} at ${known.join(", ")}/min`;
    })
    .filter((x) => x !== "");
  const refused = pacing.refused === 0 ? "none refused" : `${count(pacing.refused, "429 answer")} waited for, never a failed attempt`;
  return (
    `Paced by the providers' rate limits${limits.length > 0 ? ` (${limits.join("; ")})` : ""}: ` +
    `${n(pacing.held)} of ${n(pacing.calls)} calls waited for their turn, ${minutes(pacing.waitedMs)} of waiting; ${refused}.`
  );
}

/**
 * One line for an event, or null for events people need not see. `verbose` adds each attempt's
 * generator stderr. What commands printed and ids are shown with their control characters made
 * visible (visible).
 */
export function eventLine(event: RunEvent, style: Style, verbose = false): string | null {
  if (verbose && event.type === "attempt_end" && event.stderr) {
    const log = event.stderr
      .split("\n")
      .map((l) => style.dim(`  | ${visible(l)}`))
      .join("\n");
    const line = eventLine(event, style);
    return `${style.dim(`${verb("stderr")}${nameFor(event.id, "terminal")}  attempt ${event.attempt}:`)}\n${log}${line === null ? "" : `\n${line}`}`;
  }
  switch (event.type) {
    case "pair_start": {
      const why = event.reasons
        .map((r) => (r.kind === r.detail ? r.kind : `${r.kind}: ${r.detail}`))
        .slice(0, 3)
        .join("; ");
      return `${style.cyan(verb("start"))}${nameFor(event.id, "terminal")}${why ? style.dim(`  (${nameFor(why, "terminal")})`) : ""}`;
    }
    case "attempt_end":
      if (event.accepted || event.attempt === event.of) return null; // the pair's end says it
      return `${style.yellow(verb("retry"))}${nameFor(event.id, "terminal")}  attempt ${event.attempt}/${event.of} rejected: ${failureHeadline(event.feedback, 160, { last: false })}`;
    case "pair_end":
      return outcomeLine(event.outcome, style);
    case "restored":
      return `${style.dim(verb("restored"))}${nameFor(event.id, "terminal")}${style.dim(`  from ${nameFor(event.from, "terminal")}`)}`;
    case "warning":
      return `${style.yellow(verb("warning"))}${visible(event.message)}`;
    case "batch":
      return batchLine(event, style);
    case "run_start":
    case "attempt_start":
    case "run_end":
      return null;
  }
}

function outcomeLine(o: PairOutcome, style: Style): string {
  const note = o.note ? `  ${nameFor(o.note, "terminal")}` : "";
  const id = nameFor(o.id, "terminal");
  switch (o.status) {
    case "executed": {
      const n = o.attempts.length;
      return `${style.green(verb("accepted"))}${id}  attempt ${n}, ${seconds(o.durationMs)}${style.dim(note)}`;
    }
    case "reused":
      return `${style.dim(verb("reused"))}${id}${style.dim(note)}`;
    case "failed":
      return `${style.red(verb("failed"))}${id}  ${failureHeadline(o.note, 160, { last: false })}`;
    case "blocked":
      return `${style.red(verb("blocked"))}${id}${note}`;
    case "interrupted":
      return `${style.yellow(verb("stopped"))}${id}${note}`;
  }
}

/** `batch    anthropic msgbatch_01: 150 succeeded, 2 errored, 48 processing of 200`. */
function batchLine(e: BatchEvent, style: Style): string {
  const what = `${e.provider} ${nameFor(e.id, "terminal")}`;
  switch (e.state) {
    case "submitted":
      return `${style.cyan(verb("batch"))}${what}: ${e.requests} request${e.requests === 1 ? "" : "s"} submitted`;
    case "progress":
      return `${style.dim(verb("batch"))}${what}: ${batchCounts(e.counts)} of ${e.requests}`;
    case "ended":
      return `${style.cyan(verb("batch"))}${what} ended: ${batchCounts(e.counts)}`;
    case "cancelled":
      return `${style.yellow(verb("batch"))}${what}: cancelling (what it finished is collected by the next run)`;
    case "waiting":
      return `${style.yellow(verb("batch"))}${what}: ${batchCounts(e.counts)}; not waiting for it: pairflow run or pairflow resume collects it`;
  }
}

/** The provider's counts, those above zero: "150 succeeded, 2 errored, 48 processing". */
export function batchCounts(c: BatchCounts): string {
  const parts = (["succeeded", "errored", "expired", "canceled", "processing"] as const).filter((k) => c[k] > 0).map((k) => `${c[k]} ${k}`);
  return parts.length > 0 ? parts.join(", ") : "nothing counted yet";
}

function verb(word: string): string {
  return word.padEnd(9);
}

/** What a generator said it used: "not reported" when none of its attempts said anything. */
export const NOT_REPORTED = "not reported";

/**
 * The tokens of some attempts, as a generator reported them: null when none did (a command
 * generator reports none), never a made-up 0.
 */
export function reportedTokens(attempts: readonly { tokens: TokenUsage | null }[]): TokenUsage | null {
  const sum: TokenUsage = { input: 0, output: 0 };
  let reported = false;
  for (const a of attempts) {
    if (a.tokens === null) continue;
    reported = true;
    sum.input += a.tokens.input;
    sum.output += a.tokens.output;
  }
  return reported ? sum : null;
}

/** "-" with no attempt, "not reported" when no attempt reported any, else the total. */
export function attemptTokensText(attempts: readonly { tokens: TokenUsage | null }[]): string {
  if (attempts.length === 0) return "-";
  const tokens = reportedTokens(attempts);
  return tokens === null ? NOT_REPORTED : grouped(tokens.input + tokens.output);
}

/** The run report as `--json` writes it: the totals' tokens are null when no attempt reported any. */
export function runJson<R extends RunReport>(report: R): Omit<R, "totals"> & { totals: Omit<RunReport["totals"], "tokens"> & { tokens: TokenUsage | null } } {
  const tokens = reportedTokens(report.pairs.flatMap((p) => p.attempts));
  return { ...report, totals: { ...report.totals, tokens: tokens === null ? null : report.totals.tokens } };
}

/** A run of more pairs than this is summed up by cause (`all`: a row for every pair, however many). */
export const TABLE_ROWS = 30;
/** A failure's note of at most this many lines is shown as it is; a longer one under its headline. */
const SHORT_NOTE = 4;
/** Failed pairs a condensed summary lists, at most. */
const MAX_FAILURE_LINES = 10;

export interface RunSummaryOptions {
  /** The plan the run executed: with it, what ran is summed up by cause. */
  plan?: Plan;
  /** A row for every pair, however many. */
  all?: boolean;
  /** A terminal's width: each line is cut to it, so none wraps. */
  columns?: number;
}

/**
 * The end of a run as people read it: a row per pair (pair, status, attempts, time, tokens,
 * reference) while that fits a screen, then the totals, what the run bought and reused, and each
 * failed pair's note. A larger run is summed up instead: the totals first, the failed pairs a line
 * each (their headline, those that blocked the most first), what ran by cause, and where every pair
 * can be read (`pairflow show`).
 */
export function runSummary(report: RunReport, style: Style, options: RunSummaryOptions = {}): string {
  return fitLines(summaryText(report, style, options), options.columns);
}

function summaryText(report: RunReport, style: Style, options: RunSummaryOptions): string {
  if (!options.all && report.pairs.length > TABLE_ROWS) return condensedSummary(report, style, options.plan);
  const rows = [["pair", "status", "attempts", "time", "tokens", "reference"]];
  for (const p of report.pairs) {
    rows.push([
      nameFor(p.id, "terminal"),
      p.status,
      String(p.attempts.length),
      p.status === "executed" || p.status === "failed" ? seconds(p.durationMs) : "-",
      attemptTokensText(p.attempts),
      shortRef(p.configRef),
    ]);
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => columns(r[i]!))));
  const lines = rows.map((r, n) => {
    const line = r
      .map((cell, i) => padColumns(cell, widths[i]!))
      .join("  ")
      .trimEnd();
    return n === 0 ? style.bold(line) : line;
  });
  lines.push("", ...totalsLines(report, style));
  const failed = report.pairs.filter((p) => p.status === "failed");
  if (failed.length > 0) {
    lines.push("", style.red(`${count(failed.length, "pair")} failed:`));
    for (const p of failed) {
      const note = visible((p.note ?? "").trim()).split("\n");
      // A long note (a test runner's tail) under its headline: the line that says why comes first.
      if (note.length <= SHORT_NOTE) lines.push(`  ${nameFor(p.id, "terminal")}: ${note.join("\n    ")}`);
      else lines.push(`  ${nameFor(p.id, "terminal")}: ${failureHeadline(p.note)}`, ...note.map((l) => style.dim(`    ${l}`)));
    }
  }
  return lines.join("\n") + "\n";
}

function totalsLines(report: RunReport, style: Style): string[] {
  const t = report.totals;
  const stopped = t.interrupted > 0 ? `, ${t.interrupted} ${report.status === "waiting" ? "waiting for batches" : "interrupted"}` : "";
  const lines = [
    style.bold(`${t.executed} executed, ${t.reused} reused, ${t.failed} failed, ${t.blocked} blocked${stopped} in ${seconds(t.durationMs)}`) +
      style.dim(`  (run ${report.runId})`),
  ];
  if (report.spend) lines.push(style.dim(capitalize(spendLine(report.spend)) + "."));
  if (report.pacing && (report.pacing.held > 0 || report.pacing.refused > 0)) lines.push(style.dim(pacingLine(report.pacing)));
  if (report.sandbox && !report.sandbox.confined) lines.push(style.yellow(`Commands ran without a sandbox: ${report.sandbox.reason} (docs/security.md).`));
  return lines;
}

function condensedSummary(report: RunReport, style: Style, plan: Plan | undefined): string {
  const lines = totalsLines(report, style);
  const nodes = plan ? runNodes(plan, report) : report.pairs.map((o) => ({ id: o.id, requires: [], status: o.status, reasons: o.reasons, wave: 1 }));
  const failures = failuresOf(nodes, new Map(report.pairs.map((o) => [o.id, o.note]))).sort((a, b) => b.blocked - a.blocked);
  if (failures.length > 0) {
    lines.push("", style.red(`Failed (${failures.length})`) + style.dim(failures.length > 1 ? ", those that blocked the most first" : ""));
    lines.push(...failureLines(failures, style, MAX_FAILURE_LINES));
  }
  if (plan) {
    const causes = causesOf(nodes);
    if (causes.length > 0) lines.push("", style.bold("Ran, by cause"), ...causeLines(causes, style, SCREEN_LINES - lines.length - 4));
  }
  lines.push("", style.dim(`Every pair, with its attempts and feedback: pairflow show ${report.runId}`));
  return lines.join("\n") + "\n";
}
