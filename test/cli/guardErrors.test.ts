/**
 * An environment error is no rejection: a guard that cannot judge (a missing tool, a crash, a
 * runner's usage or internal error) fails its pair after one generator call, and once the
 * environment is fixed the next run judges that same answer without asking again.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tempRepo } from "../helpers/fixtures.js";
import { CLI } from "../helpers/package.js";

function run(dir: string, args: string[] = []) {
  const r = spawnSync(process.execPath, [CLI, "run", "--json", "--sandbox", "off", ...args], {
    cwd: dir,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1" },
  });
  return {
    status: r.status,
    stderr: r.stderr,
    report: JSON.parse(r.stdout) as { pairs: { id: string; status: string; note: string | null; attempts: unknown[] }[] },
  };
}

/** A pair whose generator counts its calls in calls.txt, judged by `guard`, with two retries to spend. */
function workflow(guard: string): string {
  return `name: g\nrmax: 2\naction_pairs:\n  a:\n    output: out.txt\n    generator: command\n    generator_config: {run: 'echo x >> calls.txt; echo answer'}\n    guard: command\n    guard_config: {run: ${JSON.stringify(guard)}}\n`;
}

const calls = (dir: string) => readFileSync(path.join(dir, "calls.txt"), "utf8").split("\n").filter(Boolean).length;

describe("a guard that cannot judge", () => {
  it.each([
    ["a missing tool", "no-such-test-runner run"],
    ["a test runner's usage error (pytest's 4)", "echo 'ERROR: file or directory not found: tests/' >&2; exit 4"],
    ["a crash by a signal", "kill -9 $$"],
    ["a read-only file system", "mkdir .cache/x 2>/dev/null || { echo \"mkdir: cannot create directory '.cache': Read-only file system\" >&2; exit 2; }"],
  ])("costs exactly one generator call: %s, and the run after the fix asks nothing", (_, guard) => {
    const dir = tempRepo({ "workflow.yml": workflow(guard) });
    const first = run(dir);
    const a = first.report.pairs[0]!;
    expect(a.status).toBe("failed");
    expect(a.note).toMatch(/^guard error: the command guard /);
    expect(a.attempts).toHaveLength(1);
    expect(calls(dir)).toBe(1);
    // Fixed (the tool installed, the runner's arguments right): the same answer is judged, no call.
    writeFileSync(path.join(dir, "workflow.yml"), workflow("true"));
    const second = run(dir);
    expect(second.report.pairs[0]!.status).toBe("executed");
    expect(calls(dir)).toBe(1);
    expect(readFileSync(path.join(dir, "out.txt"), "utf8")).toBe("answer\n");
  });

  it("is told apart from a rejection, which asks the generator again", () => {
    const dir = tempRepo({ "workflow.yml": workflow("echo 'not yet' ; exit 1") });
    const r = run(dir);
    expect(r.report.pairs[0]!.note).toMatch(/^rejected after 3 attempts/);
    expect(calls(dir)).toBe(3);
  });
});
