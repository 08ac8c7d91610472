/**
 * runs, show, resume and prune take a workflow PATH as run does, and find the state directory run
 * used for it, wherever they are started from.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tempRepo, UNCONFINED } from "../helpers/fixtures.js";
import { scaled } from "../helpers/time.js";
import { pairflow } from "./built.js";

/** Its command stops pairflow by the pid in the mutex and marks the repository: unconfined (see UNCONFINED). */
const unconfined: typeof pairflow = (args, options = {}) => pairflow(args, { ...options, env: { ...options.env, ...UNCONFINED } });

// The first call of a interrupts pairflow itself (the holder of the run mutex beside the lock file), as
// Ctrl-C would, and goes on until pairflow says it has taken the interrupt (in the file $NOTICES, its
// stderr): a finishes within the grace period, b never starts, and the run is recorded as interrupted.
// Its mark's name comes from the environment pairflow runs in ($MARK): a file the command line or the
// pair's env names would be hashed as the generator's.
const ONE = `name: one
generator: command
generator_config:
  run: 'if [ "$PAIRFLOW_PAIR" = a ] && [ ! -f "$MARK" ]; then touch "$MARK"; kill -INT "$(sed -n "s/.*\\"pid\\": *\\([0-9]*\\).*/\\1/p" .workflow.lock.json.mutex)"; until grep -q "starting nothing new" "$NOTICES"; do sleep 0.02; done; fi; echo "content of $PAIRFLOW_PAIR"'
action_pairs:
  a: {output: out/a.txt}
  b: {requires: [a], output: out/b.txt}
`;
const MARK = ".stopped";
const TWO = `name: two
generator: command
generator_config: {run: 'echo two'}
action_pairs:
  c: {output: out/c.txt}
`;

describe("history commands with a workflow path", () => {
  it("find the runs of the workflow named from anywhere, and only its runs", { timeout: scaled(90_000) }, () => {
    const repo = tempRepo({ "one/workflow.yml": ONE, "two/workflow.yml": TWO });
    const elsewhere = mkdtempSync(path.join(tmpdir(), "pairflow-elsewhere-"));
    const one = path.join(repo, "one");
    const two = path.join(repo, "two");

    const notices = path.join(elsewhere, "notices.txt");
    const stopped = unconfined(["run", one], { cwd: elsewhere, env: { NOTICES: notices, MARK }, stderrFile: notices });
    expect(stopped.status, stopped.stderr).toBe(130);
    expect(unconfined(["run", two], { cwd: elsewhere }).status).toBe(0);

    // Without a path, the state directory is the one where the command runs: none of these runs.
    expect(unconfined(["runs"], { cwd: elsewhere }).stdout).toMatch(/^no runs recorded in /);
    const runsOne = JSON.parse(unconfined(["runs", one, "--json"], { cwd: elsewhere }).stdout).runs;
    expect(runsOne.map((r: { status: string; workflow: string }) => [r.status, r.workflow])).toEqual([["interrupted", path.join(one, "workflow.yml")]]);
    const listed = unconfined(["runs", two], { cwd: elsewhere });
    expect(listed.status).toBe(0);
    expect(listed.stdout.split("\n").filter((l) => /^\d{8}T/.test(l))).toHaveLength(1);
    expect(listed.stdout).toContain("two/workflow.yml");

    const id = runsOne[0].runId as string;
    const shown = unconfined(["show", id, one], { cwd: elsewhere });
    expect(shown.status).toBe(0);
    expect(shown.stdout).toMatch(new RegExp(`^Run ${id}: interrupted`));
    expect(unconfined(["show", id], { cwd: elsewhere }).status).toBe(2);

    // resume PATH continues that workflow's interrupted run under its id: only b executes.
    const resumed = unconfined(["resume", one], { cwd: elsewhere, env: { MARK } });
    expect(resumed.stderr).toBe("");
    expect(resumed.status).toBe(0);
    expect(resumed.stdout).toContain(`resumed run ${id}`);
    expect(resumed.stdout).toMatch(/^start +b/m);
    expect(resumed.stdout).not.toMatch(/^start +a/m);
    expect(unconfined(["resume", two], { cwd: elsewhere }).stderr).toContain("no interrupted run of");

    const pruned = JSON.parse(unconfined(["prune", one, "--keep", "1", "--dry-run", "--json"], { cwd: elsewhere }).stdout);
    expect(pruned.runs).toHaveLength(1);
    expect(pruned.dryRun).toBe(true);
    expect(unconfined(["prune", path.join(repo, "nowhere")], { cwd: elsewhere }).status).toBe(2);
  });
});
