/**
 * Two branches that both re-ran a pair, merged by git with the lock file's merge driver, through the
 * installed CLI: the driver drops the pair's entry (the merged configuration is one neither branch
 * ran), and git merges the two outputs' text, which no run produced and which may be a person's
 * resolution of a conflict: kept as a person's edit, as docs/lock-file.md says, and `plan`,
 * `explain` and `run` say the same.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tempRepo, UNCONFINED } from "../helpers/fixtures.js";
import { scaled } from "../helpers/time.js";
import { CLI, pairflow } from "../cli/built.js";

function git(dir: string, ...args: string[]): string {
  const r = spawnSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", ...args], { cwd: dir, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`git ${args.join(" ")}: ${r.stdout}${r.stderr}`);
  return r.stdout;
}

const run = (dir: string, ...args: string[]) => pairflow(args, { cwd: dir, env: { ...UNCONFINED } });

function edit(file: string, from: string, to: string): void {
  writeFileSync(file, readFileSync(file, "utf8").replace(from, to));
}

describe("merging two branches that both re-ran a pair", () => {
  it("keeps git's merged text as a person's edit, and plan, explain and run say so alike", { timeout: scaled(90_000) }, () => {
    // Its output is its prompt: each branch changes another part of it, so git merges the outputs cleanly.
    const dir = tempRepo({
      "workflow.yml": "name: m\ngenerator: command\ngenerator_config: {run: cat}\naction_pairs:\n  p: {output: p.md}\n",
      "prompts.yml": "p:\n  role: Writer one.\n  constraints: Be brief.\n  task: Task one.\n",
      ".gitattributes": "*.lock.json merge=pairflow\n",
      ".gitignore": ".pairflow/\n",
    });
    git(dir, "init", "-q", "-b", "main");
    git(dir, "config", "merge.pairflow.driver", `"${process.execPath}" "${CLI}" merge-lock %O %A %B %P`);
    expect(run(dir, "run").status).toBe(0);
    git(dir, "add", "-A");
    git(dir, "commit", "-qm", "base");
    git(dir, "checkout", "-qb", "a");
    edit(path.join(dir, "prompts.yml"), "Task one.", "Task two.");
    expect(run(dir, "run").status).toBe(0);
    git(dir, "commit", "-qam", "a");
    git(dir, "checkout", "-q", "main");
    edit(path.join(dir, "prompts.yml"), "Writer one.", "Writer two.");
    expect(run(dir, "run").status).toBe(0);
    git(dir, "commit", "-qam", "main");
    git(dir, "merge", "-q", "a", "-m", "merge");
    const merged = readFileSync(path.join(dir, "p.md"), "utf8");
    expect(merged).toContain("Writer two.");
    expect(merged).toContain("Task two.");
    expect(JSON.parse(readFileSync(path.join(dir, "workflow.lock.json"), "utf8")).pairs.p).toBeUndefined();

    // git's text is no run's output, and may be a person's resolution of a conflict: kept as theirs, and said so.
    const plan = run(dir, "plan");
    expect(plan.stdout).toMatch(/skip {2}p {2}\w+ {2}output edited by hand; kept as accepted \(delete the file to regenerate it\)/);
    const explained = run(dir, "explain", "p").stdout;
    expect(explained).toMatch(/^p {2}skip\n {2}its output is a person's edit, kept whatever changed \(delete the file to regenerate it\)\n/);
    expect(explained).not.toContain("nothing changed");
    expect(explained).toContain("never (no lock entry)");

    const report = JSON.parse(run(dir, "run", "--json").stdout) as { pairs: { id: string; status: string }[] };
    expect(report.pairs.map((p) => [p.id, p.status])).toEqual([["p", "reused"]]);
    expect(readFileSync(path.join(dir, "p.md"), "utf8")).toBe(merged);
    expect(JSON.parse(readFileSync(path.join(dir, "workflow.lock.json"), "utf8")).pairs.p.source).toBe("human");

    // Deleted, the pair runs under the merged configuration.
    rmSync(path.join(dir, "p.md"));
    const again = JSON.parse(run(dir, "run", "--json").stdout) as { pairs: { id: string; status: string }[] };
    expect(again.pairs.map((p) => [p.id, p.status])).toEqual([["p", "executed"]]);
    expect(JSON.parse(readFileSync(path.join(dir, "workflow.lock.json"), "utf8")).pairs.p.source).toBe("generated");
  });
});
