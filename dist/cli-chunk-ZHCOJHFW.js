#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import {
  count
} from "./cli-chunk-XWROBFZG.js";
import {
  usd
} from "./cli-chunk-5ZWDE2EE.js";
import {
  shortRef
} from "./cli-chunk-YFM4J6CT.js";

// src/report/visible.ts
function visible(text) {
  let out = "";
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (!isControl(code)) continue;
    out += text.slice(from, i) + `\\x${code.toString(16).padStart(2, "0")}`;
    from = i + 1;
  }
  return from === 0 ? text : out + text.slice(from);
}
function isControl(code) {
  return code < 32 && code !== 9 && code !== 10 || code >= 127 && code <= 159;
}

// src/report/spend.ts
var n = (x) => x.toLocaleString("en-US");
var plural = (x, one, many = `${one}s`) => `${n(x)} ${x === 1 ? one : many}`;
function spendLine(spend) {
  const { bought, reused, avoided } = spend;
  const parts = [];
  if (bought.calls === 0) parts.push("bought no call");
  else {
    const tokens = bought.tokens === null ? "tokens not reported" : plural(bought.tokens.input + bought.tokens.output, "token");
    const cost = bought.cost === null ? "cost unknown" : usd(bought.cost);
    parts.push(`bought ${plural(bought.calls, "call")} (${tokens}, ${cost})`);
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
function firstLine(text) {
  const line = visible(text.trim().split("\n")[0] ?? "");
  return line.length > 160 ? line.slice(0, 157) + "..." : line;
}
function eventLine(event, style, verbose = false) {
  if (verbose && event.type === "attempt_end" && event.stderr) {
    const log = event.stderr.split("\n").map((l) => style.dim(`  | ${visible(l)}`)).join("\n");
    const line = eventLine(event, style);
    return `${style.dim(`${verb("stderr")}${visible(event.id)}  attempt ${event.attempt}:`)}
${log}${line === null ? "" : `
${line}`}`;
  }
  switch (event.type) {
    case "pair_start": {
      const why = event.reasons.map((r) => r.kind === r.detail ? r.kind : `${r.kind}: ${r.detail}`).slice(0, 3).join("; ");
      return `${style.cyan(verb("start"))}${visible(event.id)}${why ? style.dim(`  (${visible(why)})`) : ""}`;
    }
    case "attempt_end":
      if (event.accepted || event.attempt === event.of) return null;
      return `${style.yellow(verb("retry"))}${visible(event.id)}  attempt ${event.attempt}/${event.of} rejected: ${firstLine(event.feedback)}`;
    case "pair_end":
      return outcomeLine(event.outcome, style);
    case "restored":
      return `${style.dim(verb("restored"))}${visible(event.id)}${style.dim(`  from ${visible(event.from)}`)}`;
    case "warning":
      return `${style.yellow(verb("warning"))}${visible(event.message)}`;
    case "run_start":
    case "attempt_start":
    case "run_end":
      return null;
  }
}
function outcomeLine(o, style) {
  const note = o.note ? `  ${visible(o.note)}` : "";
  const id = visible(o.id);
  switch (o.status) {
    case "executed": {
      const n2 = o.attempts.length;
      return `${style.green(verb("accepted"))}${id}  attempt ${n2}, ${seconds(o.durationMs)}${style.dim(note)}`;
    }
    case "reused":
      return `${style.dim(verb("reused"))}${id}${style.dim(note)}`;
    case "failed":
      return `${style.red(verb("failed"))}${id}  ${firstLine(o.note ?? "")}`;
    case "blocked":
      return `${style.red(verb("blocked"))}${id}${note}`;
    case "interrupted":
      return `${style.yellow(verb("stopped"))}${id}${note}`;
  }
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
  return tokens === null ? NOT_REPORTED : (tokens.input + tokens.output).toLocaleString("en-US");
}
function runJson(report) {
  const tokens = reportedTokens(report.pairs.flatMap((p) => p.attempts));
  return { ...report, totals: { ...report.totals, tokens: tokens === null ? null : report.totals.tokens } };
}
function runSummary(report, style) {
  const rows = [["pair", "status", "attempts", "time", "tokens", "reference"]];
  for (const p of report.pairs) {
    rows.push([
      visible(p.id),
      p.status,
      String(p.attempts.length),
      p.status === "executed" || p.status === "failed" ? seconds(p.durationMs) : "-",
      attemptTokensText(p.attempts),
      shortRef(p.configRef)
    ]);
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  const lines = rows.map((r, n2) => {
    const line = r.map((cell, i) => cell.padEnd(widths[i])).join("  ").trimEnd();
    return n2 === 0 ? style.bold(line) : line;
  });
  const t = report.totals;
  const stopped = t.interrupted > 0 ? `, ${t.interrupted} interrupted` : "";
  lines.push(
    "",
    style.bold(`${t.executed} executed, ${t.reused} reused, ${t.failed} failed, ${t.blocked} blocked${stopped} in ${seconds(t.durationMs)}`) + style.dim(`  (run ${report.runId})`)
  );
  if (report.spend) lines.push(style.dim(capitalize(spendLine(report.spend)) + "."));
  if (report.sandbox && !report.sandbox.confined) lines.push(style.yellow(`Commands ran without a sandbox: ${report.sandbox.reason} (docs/security.md).`));
  const failed = report.pairs.filter((p) => p.status === "failed");
  if (failed.length > 0) {
    lines.push("", style.red(`${count(failed.length, "pair")} failed:`));
    for (const p of failed)
      lines.push(
        `  ${visible(p.id)}: ${visible((p.note ?? "").trim()).split("\n").join("\n    ")}`
      );
  }
  return lines.join("\n") + "\n";
}

export {
  visible,
  seconds,
  eventLine,
  NOT_REPORTED,
  runJson,
  runSummary
};
