/**
 * What a run shows: progress (plain lines in a log, a status line redrawn on a terminal), no cost
 * where no model is called, tokens "not reported" where the generator reported none, and a
 * generator's stderr on failure, and with --verbose on success.
 */
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import path from "node:path";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { runCli } from "../../src/cli/program.js";
import { copyToTempRepo, REPO, tempRepo } from "../helpers/fixtures.js";
import { CLI, pairflow } from "./built.js";
import { scaled } from "../helpers/time.js";

/** Three pairs of shell commands: no model anywhere, unless `model` is given. */
function commands(model?: string): string {
  return tempRepo({
    "workflow.yml": [
      "name: plain",
      ...(model ? [`model: ${model}`, `pricing: {${model}: {input: 1, output: 2}}`] : []),
      "generator: command",
      "generator_config: {run: 'echo thinking hard >&2; echo \"text of $PAIRFLOW_PAIR\"'}",
      "action_pairs:",
      "  a: {output: out/a.txt}",
      "  b: {requires: [a], output: out/b.txt}",
      "  c: {requires: [a], output: out/c.txt}",
      "",
    ].join("\n"),
  });
}

describe("progress", () => {
  it("is plain lines in a log: each pair's end says how many are done out of the total", () => {
    const r = pairflow(["run"], { cwd: commands() });
    expect(r.status).toBe(0);
    const ends = r.stdout.split("\n").filter((l) => l.startsWith("accepted"));
    expect(ends.map((l) => l.slice(l.lastIndexOf("[")))).toEqual(["[1/3]", "[2/3]", "[3/3]"]);
    expect(r.stdout).not.toMatch(/[\r\x1b]/);
  });

  it("is a live view redrawn in place on a terminal, not a line per start and end", () => {
    const dir = commands();
    // script(1) gives the command a pseudo-terminal; pairflow asks nothing here (no model: no cost).
    const r = spawnSync("script", ["-qec", `${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} run`, "/dev/null"], {
      cwd: dir,
      encoding: "utf8",
      env: { ...process.env, NO_COLOR: "1", CI: "" },
      input: "",
    });
    if (r.error) return; // no script(1) here: the renderer's own tests cover the terminal form
    expect(r.status).toBe(0);
    // Drawn, then erased and drawn again in place (how often depends on how fast the pairs end:
    // at most ten times a second; the renderer's own tests hold each frame).
    expect(r.stdout).toMatch(/[0-3]\/3 done · [01] running · [0-3] waiting/);
    expect(r.stdout).toContain("\x1b[J");
    // The counts say what ended: no line per start and end.
    expect(r.stdout).not.toMatch(/^(start|accepted) /m);
  });
});

describe("no cost noise where no model is called", () => {
  it("shows no estimate, asks nothing, passes --max-cost and says tokens were not reported", { timeout: scaled(90_000) }, () => {
    const dir = commands();
    const plan = pairflow(["plan"], { cwd: dir });
    expect(plan.status).toBe(0);
    expect(plan.stdout).not.toMatch(/estimate|token|cost/i);

    const run = pairflow(["run", "--max-cost", "0.01"], { cwd: dir });
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(run.stdout).not.toMatch(/estimate|cost/i);
    expect(run.stdout).toMatch(/^a +executed +1 +[\d.]+s +not reported +[0-9a-f]{12}$/m);

    const json = JSON.parse(pairflow(["run", "--force", "--json"], { cwd: dir }).stdout);
    expect(json.totals.tokens).toBeNull();
    expect(json.pairs.flatMap((p: { attempts: { tokens: unknown }[] }) => p.attempts.map((a) => a.tokens))).toEqual([null, null, null]);
    expect(json.estimate).toBeUndefined();

    const runs = pairflow(["runs"], { cwd: dir });
    expect(runs.stdout.split("\n").filter((l) => /^\d{8}T/.test(l))).toEqual([
      expect.stringContaining("not reported"),
      expect.stringContaining("not reported"),
    ]);
    const listed = JSON.parse(pairflow(["runs", "--json"], { cwd: dir }).stdout).runs;
    expect(listed.map((r: { tokens: unknown }) => r.tokens)).toEqual([null, null]);
    const id = readdirSync(path.join(dir, ".pairflow/runs")).sort()[0]!;
    expect(pairflow(["show", id], { cwd: dir }).stdout).toMatch(/^ {2}attempt 1: accepted in [\d.]+s, tokens not reported$/m);
  });

  it("still estimates, checks the budget and asks where a model is named", async () => {
    const dir = commands("local-1");
    expect(pairflow(["plan"], { cwd: dir }).stdout).toMatch(/^Estimate for 3 pairs to run: [\d,]+ tokens, \$/m);
    const refused = pairflow(["run", "--max-cost", "0.000001"], { cwd: dir });
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain("exceeds --max-cost");

    // On a terminal the question comes only where a model is called.
    const ask = async (target: string) => {
      const stdin = Object.assign(new PassThrough(), { isTTY: true });
      stdin.end("n\n");
      let out = "";
      const status = await runCli(["run", target], {
        stdout: { write: (s: string) => (out += s), isTTY: true },
        stderr: { write: () => true },
        stdin,
        cwd: REPO,
        env: { NO_COLOR: "1" },
      });
      return { status, out };
    };
    const priced = await ask(dir);
    expect(priced.out).toContain("[y/N]");
    expect(priced.status).toBe(1);
    const plain = await ask(commands());
    expect(plain.out).not.toContain("[y/N]");
    expect(plain.status).toBe(0);
  });
});

describe("a generator's stderr", () => {
  it("is shown on failure, and on success only with --verbose", () => {
    const dir = commands();
    expect(pairflow(["run", "--only", "a"], { cwd: dir }).stdout).not.toContain("thinking hard");
    // --force: the first run's answer to the same request would otherwise answer it, with no call.
    const verbose = pairflow(["run", "--force", "--verbose"], { cwd: dir });
    expect(verbose.status).toBe(0);
    expect(verbose.stdout).toMatch(/^stderr +a {2}attempt 1:\n {2}\| thinking hard\naccepted +a/m);

    const failing = tempRepo({
      "workflow.yml": "name: f\ngenerator: command\ngenerator_config: {run: 'echo the model is unreachable >&2; exit 3'}\naction_pairs:\n  a: {}\n",
    });
    const failed = pairflow(["run"], { cwd: failing });
    expect(failed.status).toBe(1);
    expect(failed.stdout).toContain("a: command: exited with code 3; stderr:\n    the model is unreachable");
  });

  it("leaves the example's outputs where tests never read them", () => {
    // The README's first command writes the example's out/ and lock file; tests copy the example
    // without them, so running it first changes no test.
    const ran = copyToTempRepo(path.join(REPO, "examples/tdd-stack"));
    expect(pairflow(["run", ran]).status).toBe(0);
    expect(readdirSync(ran).sort()).toEqual([".git", ".pairflow", "model.mjs", "out", "prompts.yml", "workflow.lock.json", "workflow.yml"]);
    const copy = copyToTempRepo(ran);
    expect(readdirSync(copy).sort()).toEqual([".git", "model.mjs", "prompts.yml", "workflow.yml"]);
  });
});
