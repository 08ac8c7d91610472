/**
 * On a terminal, `pairflow run` shows the plan with its estimate and asks before executing
 * anything; `--yes` skips the question; without a terminal it never asks.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { askYesNo } from "../../src/cli/ask.js";
import { tempRepo, UNCONFINED } from "../helpers/fixtures.js";
import { cli } from "./helpers.js";

/** Its command logs its calls in the repository: unconfined (see UNCONFINED). */
const unconfined: typeof cli = (args, options) => cli(args, { ...options, env: { ...options.env, ...UNCONFINED } });

// Logs each call, so a test can tell whether anything executed.
const GEN = `import { appendFileSync } from "node:fs";
appendFileSync("calls.log", process.env.PAIRFLOW_PAIR + "\\n");
process.stdout.write("content of " + process.env.PAIRFLOW_PAIR + "\\n");
`;

function project(): string {
  return tempRepo({
    "workflow.yml":
      "name: ask\nmodel: gpt-4o-mini\ngenerator: command\ngenerator_config: {run: node gen.mjs}\naction_pairs:\n  a: {output: out/a.txt}\n  b: {requires: [a]}\n",
    "prompts.yml": "a: {task: Write a.}\nb: {task: Write b.}\n",
    "gen.mjs": GEN,
  });
}

const calls = (dir: string) => (existsSync(path.join(dir, "calls.log")) ? readFileSync(path.join(dir, "calls.log"), "utf8").trim().split("\n") : []);
const QUESTION = /^Execute 2 pairs \([\d,]+ tokens, \$0\.00\d+\)\? \[y\/N\] /m;

describe("confirmation before a run", () => {
  it("on a terminal, shows the plan with its estimate and executes nothing when the answer is no", async () => {
    const dir = project();
    const r = await unconfined(["run"], { cwd: dir, tty: true, stdin: "n\n" });
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/^Plan for "ask" \(workflow\.yml\): 2 pairs in 2 waves$/m);
    expect(r.stdout).toMatch(/^Estimate for 2 pairs to run: /m);
    expect(r.stdout).toMatch(QUESTION);
    expect(r.stderr).toContain("not confirmed; nothing was executed");
    expect(calls(dir)).toEqual([]);
    expect(existsSync(path.join(dir, "workflow.lock.json"))).toBe(false);
  });

  it("executes when the answer is yes", async () => {
    const dir = project();
    const r = await unconfined(["run"], { cwd: dir, tty: true, stdin: "y\n" });
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(QUESTION);
    expect(calls(dir)).toEqual(["a", "b"]);
  });

  it("takes no answer at all (end of input) as no", async () => {
    const dir = project();
    const r = await unconfined(["run"], { cwd: dir, tty: true, stdin: "" });
    expect(r.status).toBe(1);
    expect(calls(dir)).toEqual([]);
  });

  it("does not ask with --yes", async () => {
    const dir = project();
    const r = await unconfined(["run", "--yes"], { cwd: dir, tty: true, stdin: "n\n" });
    expect(r.status).toBe(0);
    expect(r.stdout).not.toMatch(/\[y\/N\]/);
    expect(r.stdout).toMatch(/^Estimate: 2 pairs to run: .* \(pairflow plan shows the breakdown\)$/m);
    expect(calls(dir)).toEqual(["a", "b"]);
  });

  it.each([
    ["stdout is not a terminal", { tty: false, stdinTTY: true }],
    ["stdin is not a terminal", { tty: true, stdinTTY: false }],
  ])("never asks when %s", async (_, tty) => {
    const dir = project();
    const r = await unconfined(["run"], { cwd: dir, ...tty, stdin: "n\n" });
    expect(r.status).toBe(0);
    expect(r.stdout).not.toMatch(/\[y\/N\]/);
    expect(calls(dir)).toEqual(["a", "b"]);
  });

  it("does not ask when nothing will execute", async () => {
    const dir = project();
    await unconfined(["run", "--yes"], { cwd: dir });
    const r = await unconfined(["run"], { cwd: dir, tty: true, stdin: "n\n" });
    expect(r.status).toBe(0);
    expect(r.stdout).not.toMatch(/\[y\/N\]|Estimate for/);
    expect(calls(dir)).toEqual(["a", "b"]);
  });

  it.each([
    ["a command naming a model nobody priced (an offline stand-in)", "model: stand-in-1\ngenerator: command"],
    ["models priced at zero", "model: local\npricing: {local: {input: 0, output: 0}}\ngenerator: command"],
    ["no model at all", "generator: command"],
  ])("never asks for a run that costs nothing: %s", async (_, head) => {
    const dir = tempRepo({
      "workflow.yml": `name: free\n${head}\ngenerator_config: {run: node gen.mjs}\naction_pairs:\n  a: {}\n  b: {requires: [a]}\n`,
      "gen.mjs": GEN,
    });
    const r = await unconfined(["run"], { cwd: dir, tty: true, stdin: "" });
    expect(r.stdout).not.toMatch(/\[y\/N\]/);
    expect(r.status).toBe(0);
    expect(calls(dir)).toEqual(["a", "b"]);
  });

  it("asks before calling a provider's model whose price is unknown", async () => {
    const dir = tempRepo({
      "workflow.yml": "name: unpriced\nmodel: brand-new-model\ngenerator: openai\naction_pairs:\n  a: {}\n",
    });
    const r = await unconfined(["run"], { cwd: dir, tty: true, stdin: "n\n" });
    expect(r.stdout).toMatch(/^Execute 1 pair \(.*cost unknown\)\? \[y\/N\] /m);
    expect(r.status).toBe(1);
  });

  it("asks after the budget passes, and not at all when the budget refuses", async () => {
    const dir = project();
    const r = await unconfined(["run", "--max-cost", "0.000001"], { cwd: dir, tty: true, stdin: "y\n" });
    expect(r.status).toBe(1);
    expect(r.stdout).not.toMatch(/\[y\/N\]/);
    expect(r.stderr).toMatch(/exceeds --max-cost/);
    expect(calls(dir)).toEqual([]);
  });
});

describe("the question", () => {
  it("is answered no by Ctrl-C while it waits", async () => {
    const stdin = new PassThrough(); // a terminal nobody types into
    const stop = new AbortController();
    let shown = "";
    const answer = askYesNo(stdin, (s) => (shown += s), "Execute? [y/N] ", stop.signal);
    stop.abort();
    await expect(answer).resolves.toBe(false);
    expect(shown).toBe("Execute? [y/N] \n");
  });

  it("takes y and yes in any case as yes, and anything else as no", async () => {
    const ask = (typed: string) => askYesNo(Object.assign(new PassThrough(), { isTTY: true }).end(typed), () => {}, "?");
    expect(await Promise.all(["y\n", "YES\n", " Yes \n"].map(ask))).toEqual([true, true, true]);
    expect(await Promise.all(["\n", "n\n", "yep\n", "sure\n"].map(ask))).toEqual([false, false, false, false]);
  });
});
