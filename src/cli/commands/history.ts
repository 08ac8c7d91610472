import { Option, type Command } from "commander";
import { listRuns, pruneRuns, showRun } from "../../app/history.js";
import { displayPath } from "../../config/parse.js";
import { LockBusyError } from "../../records/mutex.js";
import type { PruneResult } from "../../records/prune.js";
import { runState } from "../../records/read.js";
import { shortRef } from "../../refs/hash.js";
import { styleFor } from "../../report/color.js";
import { count } from "../../report/plan.js";
import { NOT_REPORTED, seconds } from "../../report/run.js";
import { visible } from "../../report/visible.js";
import { nameFor } from "../../report/names.js";
import { examples, PATH_HELP, positiveInt, stateDirOption, type CliContext } from "../context.js";
import { EXIT_BUSY } from "./run.js";
import { grouped } from "../../model/text.js";

function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) =>
    r
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join("  ")
      .trimEnd(),
  );
}

export function registerHistory(program: Command, { io, setStatus }: CliContext): void {
  program
    .command("runs")
    .description("List recorded runs, newest first: every run in the state directory, or only the runs of the workflow named.")
    .argument("[path]", `${PATH_HELP}; lists its runs, from the state directory pairflow run used for it`)
    .option("--json", "write the list as JSON (version 1) to stdout")
    .addOption(stateDirOption())
    .addHelpText("after", examples(["pairflow runs", "pairflow runs examples/tdd-stack", "pairflow runs --json | jq '.runs[0]'"]))
    .action((target: string | undefined, opts: { json?: boolean; stateDir?: string }) => {
      const { dir, workflow, runs: rows, problems } = listRuns({ cwd: io.cwd, env: io.env, stateDir: opts.stateDir, target });
      for (const problem of problems) io.stderr.write(`warning ${problem}\n`);
      if (opts.json) {
        io.stdout.write(JSON.stringify({ version: 1, runs: rows }, null, 2) + "\n");
        return;
      }
      if (rows.length === 0) {
        io.stdout.write(`no runs${workflow ? ` of ${displayPath(workflow, io.cwd)}` : ""} recorded in ${displayPath(dir, io.cwd)}\n`);
        return;
      }
      const style = styleFor(io.stdout, io.env);
      const lines = table([
        ["run", "started", "status", "executed", "reused", "failed", "tokens", "duration", "workflow"],
        ...rows.map((r) => [
          r.runId,
          r.startedAt?.replace("T", " ").slice(0, 19) ?? "?",
          r.status,
          String(r.executed),
          String(r.reused),
          String(r.failed),
          r.tokens === null ? NOT_REPORTED : grouped(r.tokens.input + r.tokens.output),
          r.durationMs === null ? "-" : seconds(r.durationMs),
          r.workflow ? displayPath(r.workflow, io.cwd) : "?",
        ]),
      ]);
      io.stdout.write([style.bold(lines[0]!), ...lines.slice(1)].join("\n") + "\n");
    });

  program
    .command("show")
    .description("Show one run: the plan as made against what happened, pair by pair, with every attempt and its feedback.")
    .argument("<runId>", "the run (see pairflow runs)")
    .argument("[path]", `${PATH_HELP}; the run is looked up in the state directory pairflow run used for it`)
    .option("--json", "write it as JSON (version 1) to stdout")
    .addOption(stateDirOption())
    .addHelpText(
      "after",
      examples([
        "pairflow show 20261122T003012345Z-1a2b",
        "pairflow show 20261122T003012345Z-1a2b examples/tdd-stack",
        "pairflow show 20261122T003012345Z-1a2b --json",
      ]),
    )
    .action((runId: string, target: string | undefined, opts: { json?: boolean; stateDir?: string }) => {
      const { run, summary, pairs } = showRun({ cwd: io.cwd, env: io.env, stateDir: opts.stateDir, target }, runId);
      for (const problem of run.problems) io.stderr.write(`warning ${problem}\n`);
      if (opts.json) {
        io.stdout.write(JSON.stringify({ version: 1, ...summary, problems: run.problems, pairs }, null, 2) + "\n");
        return;
      }
      const style = styleFor(io.stdout, io.env);
      const out = [
        style.bold(`Run ${run.runId}: ${runState(run)}`) +
          style.dim(`  ${summary.workflow ? nameFor(displayPath(summary.workflow, io.cwd), "terminal") : ""}, started ${summary.startedAt ?? "?"}`),
      ];
      for (const { id, planned, outcome } of pairs) {
        const plan = planned
          ? `planned ${planned.action}${planned.reasons.length ? ` (${nameFor(planned.reasons.map((r) => r.detail).join("; "), "terminal")})` : ""}`
          : "not in the plan";
        // What commands printed (notes, feedback) and ids, with their control characters made visible.
        const happened = outcome ? `${outcome.status}${outcome.note ? `: ${visible(outcome.note)}` : ""}` : "never reached";
        out.push(
          "",
          `${style.bold(nameFor(id, "terminal"))}  ${style.dim(shortRef(outcome?.configRef ?? planned?.configRef ?? null))}`,
          `  ${plan}`,
          `  ${happened}`,
        );
        for (const a of outcome?.attempts ?? []) {
          const tokens = a.tokens ? `, ${grouped(a.tokens.input + a.tokens.output)} tokens` : `, tokens ${NOT_REPORTED}`;
          out.push(`  attempt ${a.attempt}: ${a.accepted ? style.green("accepted") : style.red("rejected")} in ${seconds(a.durationMs)}${tokens}`);
          if (a.feedback.trim())
            out.push(
              ...a.feedback
                .trim()
                .split("\n")
                .map((l) => `    ${visible(l)}`),
            );
        }
      }
      io.stdout.write(out.join("\n") + "\n");
    });

  program
    .command("prune")
    .description("Remove old run records, then store entries that no lock file in the repository and no kept run refers to.")
    .argument("[path]", `${PATH_HELP}; prunes the state directory pairflow run used for it, in its repository`)
    .addOption(new Option("--keep <n>", "keep the newest N runs").argParser(positiveInt))
    .option("--older-than <duration>", "remove runs that started longer ago than this: 90m, 12h, 30d, 2w")
    .option("--dry-run", "list what would be removed (runs, store records, stored artifacts, with sizes) and remove nothing")
    .option("--json", "write what was (or would be) removed as JSON (version 1) to stdout")
    .option("--no-wait", `if a run of a workflow concerned is going, fail at once (exit ${EXIT_BUSY}) instead of waiting for it`)
    .addOption(stateDirOption())
    .addHelpText(
      "after",
      examples([
        "pairflow prune --keep 20",
        "pairflow prune examples/tdd-stack --keep 5",
        "pairflow prune --older-than 30d --dry-run",
        "pairflow prune   # only store entries nothing refers to",
        "pairflow prune --dry-run --json | jq '.bytes'",
      ]),
    )
    .action(
      async (target: string | undefined, opts: { keep?: number; olderThan?: string; dryRun?: boolean; json?: boolean; wait: boolean; stateDir?: string }) => {
        const style = styleFor(io.stdout, io.env);
        let result: PruneResult;
        try {
          result = await pruneRuns(
            { cwd: io.cwd, env: io.env, stateDir: opts.stateDir, target },
            {
              keep: opts.keep,
              olderThan: opts.olderThan,
              dryRun: opts.dryRun,
              wait: opts.wait,
              onWait: (holder) => io.stderr.write(`waiting for run ${holder.runId} (pid ${holder.pid}) to finish; --no-wait fails instead\n`),
            },
          );
        } catch (err) {
          if (!(err instanceof LockBusyError)) throw err;
          io.stderr.write(`${styleFor(io.stderr, io.env).red("error")} ${err.message}; nothing was removed (exit ${EXIT_BUSY}: try again later)\n`);
          setStatus(EXIT_BUSY);
          return;
        }
        for (const warning of result.warnings) io.stderr.write(`warning ${warning}\n`);
        if (opts.json) {
          io.stdout.write(JSON.stringify({ version: 1, ...result }, null, 2) + "\n");
          return;
        }
        const what = `${count(result.runs.length, "run")} (kept ${result.kept.runs}), ${count(result.records.length, "store record")} and ${count(result.objects.length, "stored artifact")}, ${size(result.bytes)}`;
        if (!result.dryRun) {
          io.stdout.write(`removed ${what}\n`);
          return;
        }
        const lines = table([
          ["kind", "what", "size"],
          ...result.runs.map((r) => ["run", r.runId, size(r.bytes)]),
          ...result.records.map((r) => ["record", `${r.pair} ${shortRef(r.configRef)}`, size(r.bytes)]),
          ...result.objects.map((o) => ["artifact", shortRef(o.hash), size(o.bytes)]),
        ]);
        io.stdout.write(`would remove ${what}; nothing was removed\n`);
        if (lines.length > 1) io.stdout.write(["", style.bold(lines[0]!), ...lines.slice(1)].join("\n") + "\n");
      },
    );
}

/** 512 B, 4.2 KB, 12.0 MB. */
function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 ** 2) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 ** 2).toFixed(1)} MB`;
}
