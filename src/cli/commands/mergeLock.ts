import type { Command } from "commander";
import { mergeLockFiles } from "../../app/mergeLock.js";
import { examples, type CliContext } from "../context.js";
import { nameFor } from "../../report/names.js";

const SETTLED = {
  ours: "kept this branch's entry, made under the merged configuration",
  theirs: "kept the other branch's entry, made under the merged configuration",
  later: "both made under the same configuration; kept the later acceptance",
  dropped: "dropped: neither side ran the merged configuration, the next run runs it",
} as const;

export function registerMergeLock(program: Command, { io }: CliContext): void {
  program
    .command("merge-lock")
    .description(
      "Merge three versions of a lock file pair by pair, as a git merge driver: the result replaces <ours>. A pair changed on one side takes that side; one changed on both keeps the entry made under the merged configuration, or is dropped so the next run runs it. Exit status 0 when merged; 2 when a version is not a readable lock file (git then leaves the file conflicted). See docs/lock-file.md.",
    )
    .argument("<base>", "the common ancestor's version (git's %O)")
    .argument("<ours>", "this branch's version, replaced by the result (git's %A)")
    .argument("<theirs>", "the other branch's version (git's %B)")
    .argument("[path]", "the lock file's path in the repository, for messages (git's %P)")
    .addHelpText(
      "after",
      examples([
        "git config merge.pairflow.name 'pairflow lock file'",
        "git config merge.pairflow.driver 'npx pairflow merge-lock %O %A %B %P'",
        "echo '*.lock.json merge=pairflow' >> .gitattributes",
      ]),
    )
    .action((base: string, ours: string, theirs: string, name: string | undefined) => {
      const merged = mergeLockFiles({ base, ours, theirs, name, cwd: io.cwd });
      for (const { id, outcome } of merged.settled)
        io.stderr.write(`${nameFor(name ?? ours, "terminal")}: ${nameFor(id, "terminal")}: changed on both sides; ${SETTLED[outcome]}\n`);
    });
}
