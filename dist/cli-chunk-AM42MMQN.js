#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import {
  SCREEN_LINES,
  causeLines,
  causesOf,
  columns,
  count,
  failureHeadline,
  failureLines,
  failuresOf,
  fitLines,
  padColumns,
  runNodes
} from "./cli-chunk-PW37734U.js";
import {
  usd
} from "./cli-chunk-YKULHKX5.js";
import {
  nameFor
} from "./cli-chunk-FEFDJVE6.js";
import {
  visible
} from "./cli-chunk-7NHSQKXA.js";
import {
  grouped,
  shortRef
} from "./cli-chunk-BXCSBTXN.js";

// src/report/spend.ts
var n = grouped;
var plural = (x, one, many = `${one}s`) => `${n(x)} ${x === 1 ? one : many}`;
function spendLine(spend) {
  const { bought, reused, avoided } = spend;
  const parts = [];
  if (bought.calls === 0) parts.push("bought no call");
  else {
    const tokens = bought.tokens === null ? "tokens not reported" : plural(bought.tokens.input + bought.tokens.output, "token");
    const cost = bought.cost === null ? "cost unknown" : usd(bought.cost);
    const levers = [
      bought.batched > 0 ? `${bought.batched === bought.calls ? "all" : n(bought.batched)} in batches at the batch price` : "",
      bought.tokens?.cacheRead ? `${plural(bought.tokens.cacheRead, "input token")} from the prompt cache` : "",
      bought.tokens?.cacheWrite ? `${n(bought.tokens.cacheWrite)} written to it` : ""
    ].filter(Boolean);
    parts.push(`bought ${plural(bought.calls, "call")} (${tokens}, ${cost}${levers.length > 0 ? `; ${levers.join(", ")}` : ""})`);
  }
  const kinds = [
    reused.unchanged > 0 ? `${plural(reused.unchanged, "unchanged pair")}` : "",
    reused.request > 0 ? `${plural(reused.request, "request")} answered before` : "",
    reused.rejudged > 0 ? `${n(reused.rejudged)} re-judged` : ""
  ].filter(Boolean);
  if (kinds.length > 0) parts.push(`reused ${kinds.join(", ")}${reused.request + reused.rejudged > 0 ? ", with no call" : ""}`);
  const avoidedTokens = avoided.tokens.input + avoided.tokens.output;
  if (avoidedTokens > 0) {
    const unknown = avoided.unknown > 0 ? ` (and ${plural(avoided.unknown, "artifact")} of unrecorded usage or price)` : "";
    parts.push(`avoided ${plural(avoidedTokens, "token")}, ${usd(avoided.cost)} at current prices${unknown}`);
  }
  return parts.join("; ");
}

// src/report/run.ts
function capitalize(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
function seconds(ms) {
  return ms < 1e4 ? `${(ms / 1e3).toFixed(1)}s` : `${Math.round(ms / 1e3)}s`;
}
function minutes(ms) {
  if (ms < 6e4) return seconds(ms);
  const total = Math.round(ms / 1e3);
  return `${Math.floor(total / 60)}m ${total % 60}s`;
}
function pacingLine(pacing) {
  const n2 = grouped;
  const limits = pacing.budgets.map((b) => {
    const per = [
      b.tokensPerMinute === void 0 ? "" : `${n2(b.tokensPerMinute)} tokens`,
      b.requestsPerMinute === void 0 ? "" : `${n2(b.requestsPerMinute)} requests`
    ];
    const known = per.filter((x) => x !== "");
    return known.length === 0 ? "" : `${b.host} at ${known.join(", ")}/min`;
  }).filter((x) => x !== "");
  const refused = pacing.refused === 0 ? "none refused" : `${count(pacing.refused, "429 answer")} waited for, never a failed attempt`;
  return `Paced by the providers' rate limits${limits.length > 0 ? ` (${limits.join("; ")})` : ""}: ${n2(pacing.held)} of ${n2(pacing.calls)} calls waited for their turn, ${minutes(pacing.waitedMs)} of waiting; ${refused}.`;
}
function eventLine(event, style, verbose = false) {
  if (verbose && event.type === "attempt_end" && event.stderr) {
    const log = event.stderr.split("\n").map((l) => style.dim(`  | ${visible(l)}`)).join("\n");
    const line = eventLine(event, style);
    return `${style.dim(`${verb("stderr")}${nameFor(event.id, "terminal")}  attempt ${event.attempt}:`)}
${log}${line === null ? "" : `
${line}`}`;
  }
  switch (event.type) {
    case "pair_start": {
      const why = event.reasons.map((r) => r.kind === r.detail ? r.kind : `${r.kind}: ${r.detail}`).slice(0, 3).join("; ");
      return `${style.cyan(verb("start"))}${nameFor(event.id, "terminal")}${why ? style.dim(`  (${nameFor(why, "terminal")})`) : ""}`;
    }
    case "attempt_end":
      if (event.accepted || event.attempt === event.of) return null;
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
function outcomeLine(o, style) {
  const note = o.note ? `  ${nameFor(o.note, "terminal")}` : "";
  const id = nameFor(o.id, "terminal");
  switch (o.status) {
    case "executed": {
      const n2 = o.attempts.length;
      return `${style.green(verb("accepted"))}${id}  attempt ${n2}, ${seconds(o.durationMs)}${style.dim(note)}`;
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
function batchLine(e, style) {
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
function batchCounts(c) {
  const parts = ["succeeded", "errored", "expired", "canceled", "processing"].filter((k) => c[k] > 0).map((k) => `${c[k]} ${k}`);
  return parts.length > 0 ? parts.join(", ") : "nothing counted yet";
}
function verb(word) {
  return word.padEnd(9);
}
var NOT_REPORTED = "not reported";
function reportedTokens(attempts) {
  const sum = { input: 0, output: 0 };
  let reported = false;
  for (const a of attempts) {
    if (a.tokens === null) continue;
    reported = true;
    sum.input += a.tokens.input;
    sum.output += a.tokens.output;
  }
  return reported ? sum : null;
}
function attemptTokensText(attempts) {
  if (attempts.length === 0) return "-";
  const tokens = reportedTokens(attempts);
  return tokens === null ? NOT_REPORTED : grouped(tokens.input + tokens.output);
}
function runJson(report) {
  const tokens = reportedTokens(report.pairs.flatMap((p) => p.attempts));
  return { ...report, totals: { ...report.totals, tokens: tokens === null ? null : report.totals.tokens } };
}
var TABLE_ROWS = 30;
var SHORT_NOTE = 4;
var MAX_FAILURE_LINES = 10;
function runSummary(report, style, options = {}) {
  return fitLines(summaryText(report, style, options), options.columns);
}
function summaryText(report, style, options) {
  if (!options.all && report.pairs.length > TABLE_ROWS) return condensedSummary(report, style, options.plan);
  const rows = [["pair", "status", "attempts", "time", "tokens", "reference"]];
  for (const p of report.pairs) {
    rows.push([
      nameFor(p.id, "terminal"),
      p.status,
      String(p.attempts.length),
      p.status === "executed" || p.status === "failed" ? seconds(p.durationMs) : "-",
      attemptTokensText(p.attempts),
      shortRef(p.configRef)
    ]);
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => columns(r[i]))));
  const lines = rows.map((r, n2) => {
    const line = r.map((cell, i) => padColumns(cell, widths[i])).join("  ").trimEnd();
    return n2 === 0 ? style.bold(line) : line;
  });
  lines.push("", ...totalsLines(report, style));
  const failed = report.pairs.filter((p) => p.status === "failed");
  if (failed.length > 0) {
    lines.push("", style.red(`${count(failed.length, "pair")} failed:`));
    for (const p of failed) {
      const note = visible((p.note ?? "").trim()).split("\n");
      if (note.length <= SHORT_NOTE) lines.push(`  ${nameFor(p.id, "terminal")}: ${note.join("\n    ")}`);
      else lines.push(`  ${nameFor(p.id, "terminal")}: ${failureHeadline(p.note)}`, ...note.map((l) => style.dim(`    ${l}`)));
    }
  }
  return lines.join("\n") + "\n";
}
function totalsLines(report, style) {
  const t = report.totals;
  const stopped = t.interrupted > 0 ? `, ${t.interrupted} ${report.status === "waiting" ? "waiting for batches" : "interrupted"}` : "";
  const lines = [
    style.bold(`${t.executed} executed, ${t.reused} reused, ${t.failed} failed, ${t.blocked} blocked${stopped} in ${seconds(t.durationMs)}`) + style.dim(`  (run ${report.runId})`)
  ];
  if (report.spend) lines.push(style.dim(capitalize(spendLine(report.spend)) + "."));
  if (report.pacing && (report.pacing.held > 0 || report.pacing.refused > 0)) lines.push(style.dim(pacingLine(report.pacing)));
  if (report.sandbox && !report.sandbox.confined) lines.push(style.yellow(`Commands ran without a sandbox: ${report.sandbox.reason} (docs/security.md).`));
  return lines;
}
function condensedSummary(report, style, plan) {
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

export {
  seconds,
  eventLine,
  batchCounts,
  NOT_REPORTED,
  runJson,
  runSummary
};
