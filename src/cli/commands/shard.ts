/**
 * Fanning a run out: `plan --shards N`, `run --shard I/N` and `pairflow merge`. The work is in
 * src/app/shard.ts; this file holds their options and renderings.
 */
import { Option, type Command } from "commander";
import type { Shard } from "../../model/shard.js";
import { matrixOf, parseShard } from "../../plan/shards.js";
import { styleFor } from "../../report/color.js";
import { eventLine, runSummary } from "../../report/run.js";
import { mergeShards } from "../../app/shard.js";
import { EXIT, examples, PATH_HELP, positiveInt, stateDirOption, terminalColumns, type CliContext } from "../context.js";
import { nameFor } from "../../report/names.js";
import { mark } from "../timing.js";

export const shardOption = () =>
  new Option("--shard <i/n>", "execute only shard I of N of the plan (see plan --shards); other shards' artifacts are awaited from the shared store").argParser(
    parseShard,
  );

export function fanOutOptions(command: Command): Command {
  return command
    .addOption(new Option("--shared-store <dir>", "the store shards share (default: <state dir>/shared)").env("PAIRFLOW_SHARED_STORE"))
    .addOption(
      new Option("--fanout <id>", "names this fan-out, so shard reports of an earlier one in the same shared store are not read as this one's")
        .env("PAIRFLOW_FANOUT")
        .default("local"),
    );
}

export const shardWaitOption = () =>
  new Option("--shard-wait <seconds>", "how long a shard waits for another shard's artifact before the pair that needs it is blocked")
    .default(1800)
    .argParser(positiveInt);

/** `plan --shards N --json` adds the shards and a matrix for `strategy.matrix` (empty when nothing runs). */
export function shardsJson(shards: Shard[]): { shards: Shard[]; matrix: { include: { shard: string }[] } } {
  return { shards, matrix: matrixOf(shards) };
}

export function shardsText(shards: Shard[]): string {
  if (shards.length === 0) return "\nShards: none (nothing to run)\n";
  const lines = shards.map((s) => {
    const awaits = Object.keys(s.awaits).length;
    return `  ${s.index}/${s.count}: ${s.pairs.length} pair${s.pairs.length === 1 ? "" : "s"}${awaits > 0 ? `, awaits ${awaits} from other shards` : ""}: ${s.pairs.map((id) => nameFor(id, "terminal")).join(", ")}`;
  });
  return `\nShards:\n${lines.join("\n")}\n`;
}

export function registerMerge(program: Command, { io, setStatus }: CliContext): void {
  fanOutOptions(program.command("merge"))
    .description(
      "Fold the shards of a fanned-out run into the workspace: the store, output files, the lock file and one run record. Executes nothing; fails if a shard failed or never reported.",
    )
    .argument("[path]", PATH_HELP)
    .option("--json", "write the merged run report as JSON to stdout")
    .addOption(stateDirOption())
    .addHelpText("after", examples(["pairflow plan --shards 3 --json | jq -c .matrix", "pairflow run --shard 2/3", "pairflow merge"]))
    .action(async (target: string | undefined, opts: { json?: boolean; stateDir?: string; sharedStore?: string; fanout: string }) => {
      const style = styleFor(opts.json ? io.stderr : io.stdout, io.env);
      const progress = opts.json ? io.stderr : io.stdout;
      const { report, missing } = await mergeShards(target, {
        cwd: io.cwd,
        env: io.env,
        stateDir: opts.stateDir,
        sharedDir: opts.sharedStore,
        fanout: opts.fanout,
        onPhase: mark,
        onEvent: (event) => {
          if (event.type === "warning") progress.write(eventLine(event, style) + "\n");
        },
      });
      for (const s of missing) progress.write(style.red(`shard ${s.index}/${s.count} never reported: its pairs are not merged`) + "\n");
      if (opts.json) io.stdout.write(JSON.stringify(report, null, 2) + "\n");
      else io.stdout.write(runSummary(report, style, { columns: terminalColumns(io.stdout) }));
      setStatus(report.status === "success" ? EXIT.ok : EXIT.failed);
    });
}
