/**
 * The job log: the plan in a group, each executed or failed pair in a group of its own, and
 * annotations on the workflow and prompts files. Pairs run concurrently, so a pair's group is
 * written whole when the pair ends; its start is one line at once, so a long call is visible.
 */
import * as core from "@actions/core";
import path from "node:path";
import type { ConfigIssue } from "../model/errors.js";
import { issueAt, type SourceFile } from "../config/parse.js";
import type { Workflow } from "../model/workflow.js";
import type { Plan } from "../model/plan.js";
import { styleFor, type Style } from "../report/color.js";
import { planListText, planText } from "../report/plan.js";
import { failureHeadline } from "../report/failure.js";
import { seconds } from "../report/run.js";
import { visible } from "../report/visible.js";
import { nameFor } from "../report/names.js";
import type { PairOutcome, RunEvent, RunReport } from "../model/run.js";
import { grouped } from "../model/text.js";

/**
 * Text for the job log of which no line is a workflow command. The runner takes a line for one when,
 * after any whitespace, it starts with `::` (`::notice file=README.md::...`, `::stop-commands::x`,
 * `::add-mask::...`), and when `##[` stands anywhere in it (the older form, `##[error]...`); it ends
 * lines at CR as well as LF. Here the colon that starts such a line is written `\x3a`, and the
 * bracket of `##[` `\x5b`, as control characters are made visible (report/visible.ts): a reader
 * still sees what was printed, and the runner obeys none of it. Invisible format characters
 * (zero-width spaces, soft hyphens) in between count as nothing. pairflow's own commands (groups,
 * annotations, masks) are written by @actions/core, each a line of its own, and stay commands.
 */
export function inert(text: string): string {
  return text.replace(COMMAND_START, "$1\\x3a").replace(OLD_COMMAND, "$1\\x5b");
}

const COMMAND_START = /^([\s\p{Cf}\x85]*):(?=\p{Cf}*:)/gmu;
const OLD_COMMAND = /(#\p{Cf}*#\p{Cf}*)\[/gu;

/** Writes text to the job log as text, never as a workflow command (inert). */
export function info(text: string): void {
  core.info(inert(text));
}

/** The runner's log shows ANSI colours, though stdout is no terminal; NO_COLOR still turns them off. */
export const style: Style = styleFor({ isTTY: true });

/**
 * The plan in a group, as `pairflow plan` prints it: by cause when it is longer than a screen, and
 * then every pair, by wave, in a group of its own, closed until someone opens it.
 */
export function logPlan(plan: Plan, cwd: string): void {
  const run = plan.pairs.filter((p) => p.action === "run").length;
  const text = planText(plan, style, cwd, undefined, { more: "the next group lists every pair, by wave" });
  core.startGroup(`Plan: ${run} of ${plan.pairs.length} pairs to run`);
  info(text.trimEnd());
  core.endGroup();
  if (text === planListText(plan, style, cwd)) return;
  core.startGroup(`Every pair of the plan, by wave (${plan.pairs.length})`);
  info(planListText(plan, style, cwd).trimEnd());
  core.endGroup();
}

/** Follows a run's events. */
export class RunLog {
  private readonly attempts = new Map<string, string[]>();
  private readonly reused: string[] = [];
  /** The plan the run executes, once it started. */
  plan: Plan | undefined;

  readonly onEvent = (event: RunEvent): void => {
    switch (event.type) {
      case "run_start":
        this.plan = event.plan;
        break;
      case "pair_start": {
        const why = event.reasons.map((r) => (r.kind === r.detail ? r.kind : `${r.kind}: ${r.detail}`)).join("; ");
        info(`${style.cyan("start")}     ${nameFor(event.id, "terminal")}${why ? style.dim(`  (${nameFor(why, "terminal")})`) : ""}`);
        break;
      }
      case "attempt_end": {
        const verdict = event.accepted ? style.green("accepted") : style.yellow("rejected");
        const feedback = event.feedback.trim() ? `\n${indent(visible(event.feedback.trim()))}` : "";
        this.lines(event.id).push(`attempt ${event.attempt}/${event.of} ${verdict} in ${seconds(event.durationMs)}${event.accepted ? "" : feedback}`);
        break;
      }
      case "pair_end":
        this.pairEnd(event.outcome);
        break;
      case "restored":
        info(`${style.dim("restored")}  ${nameFor(event.id, "terminal")}${style.dim(` from ${nameFor(event.from, "terminal")}`)}`);
        break;
      case "warning":
        core.warning(visible(event.message));
        break;
    }
  };

  /** What commands printed (feedback, notes) and ids go to the log with their control characters made visible. */
  private pairEnd(o: PairOutcome): void {
    const lines = this.attempts.get(o.id) ?? [];
    this.attempts.delete(o.id);
    const id = nameFor(o.id, "terminal");
    const note = o.note ? visible(o.note) : null;
    switch (o.status) {
      case "reused":
        this.reused.push(note ? `${id}  ${style.dim(note)}` : id);
        return;
      case "executed":
        core.startGroup(`✔ ${id}: accepted on attempt ${o.attempts.length} (${seconds(o.durationMs)})`);
        break;
      case "failed":
        // The group's title is what a reader sees of it: the line that says why.
        core.startGroup(`✖ ${id}: ${failureHeadline(o.note)}`);
        if (note) lines.push(style.red(note));
        break;
      default: // blocked, or stopped by an interruption
        info(`${style.red(o.status.padEnd(9))} ${id}${note ? `  ${note}` : ""}`);
        return;
    }
    info(lines.join("\n") || "(no attempts)");
    core.endGroup();
  }

  /** The reused pairs, in one group after the run: in a large workflow they are most of it. */
  end(): void {
    if (this.reused.length === 0) return;
    core.startGroup(`${this.reused.length} pairs reused`);
    info(this.reused.join("\n"));
    core.endGroup();
  }

  private lines(id: string): string[] {
    let lines = this.attempts.get(id);
    if (!lines) this.attempts.set(id, (lines = []));
    return lines;
  }
}

function indent(text: string): string {
  return text
    .split("\n")
    .map((l) => `    ${l}`)
    .join("\n");
}

// ---------------------------------------------------------------------------------------------
// Annotations

/** A path as annotations need it: relative to the repository root, which is the workspace. */
export function repoPath(file: string, cwd: string, workspace: string): string {
  return path.relative(workspace, path.resolve(cwd, file)).split(path.sep).join("/");
}

/** GitHub shows at most this many error annotations of a step; it drops the rest. */
export const MAX_ERROR_ANNOTATIONS = 10;

/**
 * Each configuration problem as an error on its line (issue paths relative to the workspace), within
 * what GitHub shows of a step (MAX_ERROR_ANNOTATIONS): when there are more, the last annotation
 * counts the rest, which the job summary lists.
 */
export function annotateConfigIssues(issues: ConfigIssue[]): void {
  const shown = issues.length <= MAX_ERROR_ANNOTATIONS ? issues : issues.slice(0, MAX_ERROR_ANNOTATIONS - 1);
  for (const issue of shown) {
    core.error(visible(issue.key ? `${issue.key}: ${issue.message}` : issue.message), {
      title: "pairflow: invalid configuration",
      file: issue.file,
      startLine: issue.line,
      startColumn: issue.column,
    });
  }
  const more = issues.length - shown.length;
  if (more > 0) {
    core.error(
      `${grouped(more)} more configuration ${more === 1 ? "problem is" : "problems are"} not annotated here (GitHub shows ${MAX_ERROR_ANNOTATIONS} errors of a step): the job summary lists every one.`,
      { title: "pairflow: invalid configuration" },
    );
  }
}

/** What a failed run annotates: the run-level error and its failed pairs. */
export interface FailedRunAnnotations {
  /** The step's failure, in one line; undefined when the step does not fail. */
  failure?: string;
  /** For each failed pair, how many pairs it blocked. */
  blocked: ReadonlyMap<string, number>;
}

/**
 * The run's errors within what GitHub shows of a step (MAX_ERROR_ANNOTATIONS): the step's failure
 * first, which also fails the step, then each failed pair at its entry in the workflow file, as loaded
 * for the run, those that blocked the most first; when not all fit, the last annotation says how
 * many more failed, and that the job summary has every one.
 */
export function annotateFailedRun(report: RunReport, run: FailedRunAnnotations, source: SourceFile, workflow: Workflow, workspace: string): void {
  if (run.failure !== undefined) core.setFailed(run.failure);
  const blocked = (id: string) => run.blocked.get(id) ?? 0;
  // Sorting is stable: failures that blocked as many stay in plan order.
  const failed = report.pairs.filter((p) => p.status === "failed").sort((a, b) => blocked(b.id) - blocked(a.id));
  const room = MAX_ERROR_ANNOTATIONS - (run.failure === undefined ? 0 : 1);
  const shown = failed.length <= room ? failed : failed.slice(0, room - 1);
  for (const p of shown) {
    const at = issueAt(source, ["action_pairs", p.id], "", true);
    // The first line is the annotation's title in lists: the headline, then the whole note.
    const headline = failureHeadline(p.note);
    const note = visible(p.note ?? "failed");
    core.error(note === headline ? note : `${headline}\n\n${note}`, {
      title: `pairflow: ${nameFor(p.id, "terminal")} failed`,
      file: repoPath(workflow.path, workspace, workspace),
      startLine: at.line,
      startColumn: at.column,
    });
  }
  const more = failed.length - shown.length;
  if (more > 0) {
    core.error(
      `${grouped(more)} more failed ${more === 1 ? "pair is" : "pairs are"} not annotated here (GitHub shows ${MAX_ERROR_ANNOTATIONS} errors of a step): the job summary has every failed pair, with its feedback.`,
      { title: `pairflow: ${grouped(more)} more failed` },
    );
  }
}
