/**
 * `pairflow prompt` against what a run's generator actually receives: a recording generator keeps
 * every prompt (stdin), the prompt file and the dependency files it was given.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tempRepo, UNCONFINED } from "../helpers/fixtures.js";
import { pairflow } from "./built.js";
import { scaled } from "../helpers/time.js";

/** Its command records what it received in the repository: unconfined (see UNCONFINED). */
const unconfined: typeof pairflow = (args, options = {}) => pairflow(args, { ...options, env: { ...options.env, ...UNCONFINED } });

// Records stdin, PAIRFLOW_PROMPT_FILE and PAIRFLOW_DEPENDENCIES_DIR of each call. b's first answer
// is one its guard rejects, so b makes a second attempt with the feedback in its prompt.
const RECORDER = `
import { readdirSync, readFileSync, writeFileSync, mkdirSync } from "node:fs";
import path from "node:path";

const pair = process.env.PAIRFLOW_PAIR, attempt = process.env.PAIRFLOW_ATTEMPT;
const stdin = readFileSync(0, "utf8");
const dir = process.env.PAIRFLOW_DEPENDENCIES_DIR;
const deps = Object.fromEntries(readdirSync(dir).map((name) => [name, readFileSync(path.join(dir, name), "utf8")]));
mkdirSync("calls", { recursive: true });
writeFileSync(\`calls/\${pair}.\${attempt}.json\`, JSON.stringify({ stdin, file: readFileSync(process.env.PAIRFLOW_PROMPT_FILE, "utf8"), deps }));
process.stdout.write(pair === "b" && attempt === "1" ? "draft\\n" : \`\${pair} says hello\\n\`);
`;

const WORKFLOW = `name: rec
specification: Two pairs and a third that reads both.
constraints: Be brief.
rmax: 2
generator: command
generator_config: {run: node rec.mjs}
action_pairs:
  a: {output: out/a.md}
  b: {requires: [a], output: out/b.md, guard: regex, guard_config: {pattern: "hello"}}
  c: {requires: [b, a]}
`;

const PROMPTS = `a: {role: Writer., task: Write a.}
b: {task: Improve a., feedback_wrapper: "REJECTED -> {feedback} <-"}
c: {task: Compare.}
`;

function project(): string {
  return tempRepo({ "workflow.yml": WORKFLOW, "prompts.yml": PROMPTS, "rec.mjs": RECORDER });
}

function call(dir: string, pair: string, attempt: number): { stdin: string; file: string; deps: Record<string, string> } {
  return JSON.parse(readFileSync(path.join(dir, "calls", `${pair}.${attempt}.json`), "utf8"));
}

describe("pairflow prompt", () => {
  it("prints byte for byte what the generator receives, retries included, and hands dependencies over as files", { timeout: scaled(90_000) }, () => {
    const dir = project();
    const run = unconfined(["run"], { cwd: dir });
    expect(run.status).toBe(0);
    expect(readdirSync(path.join(dir, "calls")).sort()).toEqual(["a.1.json", "b.1.json", "b.2.json", "c.1.json"]);

    for (const pair of ["a", "b", "c"]) {
      const shown = unconfined(["prompt", pair], { cwd: dir });
      expect(shown.status).toBe(0);
      expect(shown.stderr).toBe("");
      expect(shown.stdout).toBe(call(dir, pair, 1).stdin);
      expect(call(dir, pair, 1).file).toBe(shown.stdout);
    }
    // The retry, with the guard's feedback on the first attempt.
    const feedback = unconfined(["show", readdirSync(path.join(dir, ".pairflow/runs"))[0]!, "--json"], { cwd: dir });
    const rejected = JSON.parse(feedback.stdout).pairs.find((p: { id: string }) => p.id === "b").outcome.attempts[0].feedback as string;
    const retry = unconfined(["prompt", "b", "--attempt", "2", "--feedback", rejected], { cwd: dir });
    expect(retry.status).toBe(0);
    expect(retry.stdout).toBe(call(dir, "b", 2).stdin);
    expect(retry.stdout).toContain(`# History\n\n## Attempt 1\n\nREJECTED -> ${rejected} <-`);

    // One file per dependency, named by pair id, holding its accepted artifact.
    expect(call(dir, "a", 1).deps).toEqual({});
    expect(call(dir, "c", 1).deps).toEqual({ a: "a says hello\n", b: "b says hello\n" });
  });

  it("shows a hand-edited output as a run would give it, and says when a dependency will run first", () => {
    const dir = project();
    expect(unconfined(["run"], { cwd: dir }).status).toBe(0);
    writeFileSync(path.join(dir, "out/a.md"), "edited by a person\n");
    const shown = unconfined(["prompt", "b"], { cwd: dir });
    expect(shown.stdout).toContain("## a\n\n```\nedited by a person\n```");
    expect(shown.stderr).toBe("");
    // Editing a's prompt makes a run again: c's prompt is shown with a's current artifact, and says so.
    const other = project();
    expect(unconfined(["run"], { cwd: other }).status).toBe(0);
    writeFileSync(path.join(other, "prompts.yml"), PROMPTS.replace("Write a.", "Write a again."));
    const before = unconfined(["prompt", "c"], { cwd: other });
    expect(before.status).toBe(0);
    expect(before.stdout).toContain("## a\n\n```\na says hello\n```");
    expect(before.stderr).toContain("note a will run before c: shown with its last accepted artifact, which that run may change");
  });

  it("names the stand-in feedback of a retry it was not given", () => {
    const dir = project();
    const r = unconfined(["prompt", "a", "--attempt", "3"], { cwd: dir });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("## Attempt 1\n\nYour previous attempt was rejected:\n(the guard's feedback on attempt 1)");
    expect(r.stdout).toContain("## Attempt 2\n\n");
    expect(r.stderr).toContain("attempt 1's feedback is a stand-in: give the guard's with --feedback");
  });

  it("exits 2 with what to do for an unknown pair, an attempt past rmax, or a dependency not accepted yet", () => {
    const dir = project();
    const unknown = unconfined(["prompt", "bb"], { cwd: dir });
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain('no pair "bb" in rec (pairs: a, b, c)');
    const typo = unconfined(["prompt", "g_tset", "examples/tdd-stack"]);
    expect(typo.status).toBe(2);
    expect(typo.stderr).toContain('no pair "g_tset" in tdd-stack; did you mean "g_test"?');
    const late = unconfined(["prompt", "a", "--attempt", "4"], { cwd: dir });
    expect(late.status).toBe(2);
    expect(late.stderr).toContain("a makes at most 3 attempts (rmax 2); --attempt 4 never happens");
    const missing = unconfined(["prompt", "c"], { cwd: dir });
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain("b has no accepted artifact here yet");
    expect(missing.stdout).toBe("");
    const many = unconfined(["prompt", "a", "--attempt", "2", "--feedback", "x", "--feedback", "y"], { cwd: dir });
    expect(many.status).toBe(2);
    expect(many.stderr).toContain("attempt 2 follows 1 rejected attempt, but 2 --feedback were given");
  });

  it("prints the example's prompt with the path after the pair", () => {
    const r = unconfined(["prompt", "g_test", "examples/tdd-stack"]);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^# Role\n\n[\s\S]*\n# Task\n\n[^\n]+$/);
  });
});

describe("dependency file names", () => {
  it("are one file per pair id, never a path, whatever the id holds", async () => {
    const { dependencyFileName } = await import("../../src/generators/command.js");
    expect(dependencyFileName("g_test")).toBe("g_test");
    expect(dependencyFileName("translate[docs/intro.md]")).toBe("translate%5Bdocs%2Fintro.md%5D");
    const fc = (await import("fast-check")).default;
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({ minLength: 1, maxLength: 12 }), { minLength: 2, maxLength: 8 }), (ids) => {
        const names = ids.map(dependencyFileName);
        expect(new Set(names).size).toBe(ids.length);
        for (const name of names) {
          expect(name).not.toMatch(/[/\\\0]/);
          expect([".", ".."]).not.toContain(name);
        }
      }),
    );
    expect(dependencyFileName("..")).toBe("%2E%2E");
  });
});
