import { Option, type Command } from "commander";
import { listRuns, pruneRuns, showRun } from "../../app/history.js";
import { displayPath } from "../../config/parse.js";
import { runState } from "../../records/read.js";
import { shortRef } from "../../refs/hash.js";
import { styleFor } from "../../report/color.js";
import { count } from "../../report/plan.js";
import { seconds } from "../../report/run.js";
import { examples, positiveInt, stateDirOption, type CliContext } from "../context.js";

function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) =>
    r
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join("  ")
      .trimEnd(),
  );
}

export function registerHistory(program: Command, { io }: CliContext): void {
  program
    .command("runs")
    .description("List recorded runs, newest first.")
    .option("--json", "write the list as JSON (version 1) to stdout")
    .addOption(stateDirOption())
    .addHelpText("after", examples(["pairflow runs", "pairflow runs --json | jq '.runs[0]'"]))
    .action((opts: { json?: boolean; stateDir?: string }) => {
      const { dir, runs: rows, problems } = listRuns({ cwd: io.cwd, env: io.env, stateDir: opts.stateDir });
      for (const problem of problems) io.stderr.write(`warning ${problem}\n`);
      if (opts.json) {
        io.stdout.write(JSON.stringify({ version: 1, runs: rows }, null, 2) + "\n");
        return;
      }
      if (rows.length === 0) {
        io.stdout.write(`no runs recorded in ${displayPath(dir, io.cwd)}\n`);
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
          String(r.tokens.input + r.tokens.output),
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
    .option("--json", "write it as JSON (version 1) to stdout")
    .addOption(stateDirOption())
    .addHelpText("after", examples(["pairflow show 20261122T003012345Z-1a2b", "pairflow show 20261122T003012345Z-1a2b --json"]))
    .action((runId: string, opts: { json?: boolean; stateDir?: string }) => {
      const { run, summary, pairs } = showRun({ cwd: io.cwd, env: io.env, stateDir: opts.stateDir }, runId);
      for (const problem of run.problems) io.stderr.write(`warning ${problem}\n`);
      if (opts.json) {
        io.stdout.write(JSON.stringify({ version: 1, ...summary, problems: run.problems, pairs }, null, 2) + "\n");
        return;
      }
      const style = styleFor(io.stdout, io.env);
      const out = [
        style.bold(`Run ${run.runId}: ${runState(run)}`) +
          style.dim(`  ${summary.workflow ? displayPath(summary.workflow, io.cwd) : ""}, started ${summary.startedAt ?? "?"}`),
      ];
      for (const { id, planned, outcome } of pairs) {
        const plan = planned
          ? `planned ${planned.action}${planned.reasons.length ? ` (${planned.reasons.map((r) => r.detail).join("; ")})` : ""}`
          : "not in the plan";
        const happened = outcome ? `${outcome.status}${outcome.note ? `: ${outcome.note}` : ""}` : "never reached";
        out.push("", `${style.bold(id)}  ${style.dim(shortRef(outcome?.configRef ?? planned?.configRef ?? null))}`, `  ${plan}`, `  ${happened}`);
        for (const a of outcome?.attempts ?? []) {
          const tokens = a.tokens ? `, ${a.tokens.input + a.tokens.output} tokens` : "";
          out.push(`  attempt ${a.attempt}: ${a.accepted ? style.green("accepted") : style.red("rejected")} in ${seconds(a.durationMs)}${tokens}`);
          if (a.feedback.trim())
            out.push(
              ...a.feedback
                .trim()
                .split("\n")
                .map((l) => `    ${l}`),
            );
        }
      }
      io.stdout.write(out.join("\n") + "\n");
    });

  program
    .command("prune")
    .description("Remove old run records, then store entries that no lock file and no kept run refers to.")
    .addOption(new Option("--keep <n>", "keep the newest N runs").argParser(positiveInt))
    .option("--older-than <duration>", "remove runs that started longer ago than this: 90m, 12h, 30d, 2w")
    .addOption(stateDirOption())
    .addHelpText("after", examples(["pairflow prune --keep 20", "pairflow prune --older-than 30d", "pairflow prune   # only store entries nothing refers to"]))
    .action((opts: { keep?: number; olderThan?: string; stateDir?: string }) => {
      const result = pruneRuns({ cwd: io.cwd, env: io.env, stateDir: opts.stateDir }, opts);
      io.stdout.write(
        `removed ${count(result.removedRuns.length, "run")} (kept ${result.keptRuns}), ${count(result.removedRecords, "store record")} and ${count(result.removedObjects, "stored artifact")}\n`,
      );
    });
}
