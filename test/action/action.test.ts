/**
 * The action as a runner runs it, without a cache service: inputs, outputs, the job log, the
 * annotations and the job summary.
 */
import { existsSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { generateWorkflow } from "../../bench/generate.js";
import { STEP_SUMMARY_LIMIT } from "../../src/report/summary.js";
import { copyToTempRepo, REPO, tempRepo } from "../helpers/fixtures.js";
import { checkMermaid, mermaidBlocks } from "./mermaid.js";
import { GITHUB_TOKEN, runAction } from "./runner.js";
import { tddStack } from "./tddStack.js";
import { expectEveryOutput } from "./outputs.js";
import { scaled } from "../helpers/time.js";

const EXAMPLE = path.join(REPO, "examples/tdd-stack");
const NO_CACHE = { cache: "false" };
/** A generator answering "content of <pair>", as a shell line: no process but the shell per call. */
const GEN = `'echo "content of $PAIRFLOW_PAIR"'`;

describe("a run", () => {
  it("reports the plan, each pair, the outputs and a job summary", async () => {
    const result = await runAction({ workspace: copyToTempRepo(EXAMPLE), with: NO_CACHE });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe("");
    // The plan by wave in a group, then a group per executed pair.
    expect(result.stdout).toMatch(/::group::Plan: 3 of 3 pairs to run\nPlan for "tdd-stack" \(workflow.yml\): 3 pairs in 3 waves\n\nWave 1\n {2}run {3}g_test/);
    expect(result.stdout).toMatch(/::group::✔ g_impl: accepted on attempt 1 \(\d+\.\ds\)\nattempt 1\/3 accepted in \d+\.\ds\n::endgroup::/);

    const plan = JSON.parse(result.outputs.plan!);
    expect(plan.version).toBe(1);
    expect(plan.totals).toEqual({ pairs: 3, run: 3, skip: 0 });
    expect(JSON.parse(result.outputs.executed!)).toEqual(["g_test", "g_impl", "g_review"]);
    expect(JSON.parse(result.outputs.failed!)).toEqual([]);
    expect(result.outputs["run-id"]).toMatch(/^\d{8}T\d{9}Z-[0-9a-f]{4}$/);

    expect(result.summary).toContain(`## pairflow run: tdd-stack succeeded`);
    // A command generator reports no tokens: "not reported", as the CLI says, never 0.
    expect(result.summary).toContain("**3 pairs**: 3 executed, 0 reused, 0 failed, 0 blocked · tokens not reported · ");
    // Four columns, to fit GitHub's column; attempts, tokens and the reference collapsed under them.
    expect(result.summary).toMatch(/\| `g_impl` \| executed \| new: never accepted \| \d+\.\ds \|\n/);
    expect(result.summary).toMatch(/\| `g_impl` \| 1 \| not reported \| `[0-9a-f]{12}` \|\n/);
    const [graph] = mermaidBlocks(result.summary);
    expect(graph).toContain("class p0,p1,p2 executed");
    await checkMermaid(graph!);
  });

  it("fails the step for a failed pair, with an annotation at its entry and its last feedback in the summary", async () => {
    const workspace = tempRepo({
      "workflow.yml": [
        "name: failing",
        "rmax: 1",
        "generator: command",
        `generator_config: {run: ${GEN}}`,
        "action_pairs:",
        "  good: {}",
        "  bad:",
        "    guard: contains",
        '    guard_config: {text: "<never> | there"}',
        "  after_bad: {requires: [bad]}",
        "",
      ].join("\n"),
    });
    const result = await runAction({ workspace, with: NO_CACHE });
    expect(result.code).toBe(1);
    expect(JSON.parse(result.outputs.failed!)).toEqual(["bad"]);
    expect(JSON.parse(result.outputs.blocked!)).toEqual(["after_bad"]);
    expect(JSON.parse(result.outputs.executed!)).toEqual(["good"]);
    expectEveryOutput(result.outputs, { "to-run": "3", "has-changes": "true", "comment-url": "" });
    const bad = result.errors.find((e) => e.properties.title === "pairflow: bad failed")!;
    expect(bad.properties).toMatchObject({ file: "workflow.yml", line: "7", col: "3" });
    expect(bad.message).toBe('rejected after 2 attempts: missing: "<never> | there"');
    // The group's title says why: it is what a reader sees of a closed group.
    expect(result.stdout).toMatch(
      /::group::✖ bad: rejected after 2 attempts: missing: "<never> \| there"\nattempt 1\/2 rejected in [\d.]+s\n {4}missing: "<never> \| there"\n/,
    );
    expect(result.stdout).toMatch(/^blocked {3}after_bad {2}blocked by bad$/m);

    expect(result.summary).toContain("## pairflow run: failing failed");
    expect(result.summary).toContain(
      '<details><summary>✖ <code>bad</code> (blocked 1 pair): rejected after 2 attempts: missing: &#34;&#60;never&#62; | there&#34;</summary>\n\n```text\nmissing: "<never> | there"\n```\n\n</details>',
    );
    expect(result.summary).toContain("| `after_bad` | blocked | blocked by bad | – |");
    expect(result.summary).toContain("| `after_bad` | 0 | – | ? |");
    const [graph] = mermaidBlocks(result.summary);
    await checkMermaid(graph!);
    expect(graph).toMatch(/class p\d failed/);
    expect(graph).toMatch(/class p\d blocked/);
  });

  it("keeps its error annotations within the 10 GitHub shows: the step's failure first, then the failures that blocked the most", async () => {
    // 13 pairs fail; the last of them in the file blocks 5, the others none.
    const failing = (id: string, requires = "") => `  ${id}: {guard: contains, guard_config: {text: "<never>"}${requires ? `, requires: [${requires}]` : ""}}`;
    const lone = Array.from({ length: 12 }, (_, i) => `f${String(i + 1).padStart(2, "0")}`);
    const workspace = tempRepo({
      "workflow.yml": [
        "name: many-failing",
        "rmax: 0",
        "generator: command",
        `generator_config: {run: ${GEN}}`,
        "action_pairs:",
        ...lone.map((id) => failing(id)),
        failing("root"),
        ...[1, 2, 3, 4, 5].map((i) => failing(`after${i}`, "root")),
        "",
      ].join("\n"),
    });
    const result = await runAction({ workspace, with: NO_CACHE });
    expect(result.code).toBe(1);
    expect(JSON.parse(result.outputs.failed!)).toHaveLength(13);
    expect(JSON.parse(result.outputs.blocked!)).toEqual(["after1", "after2", "after3", "after4", "after5"]);
    expect(result.errors.length).toBeLessThanOrEqual(10);
    expect(result.errors[0]!.message).toMatch(/^the run failed: 13 failed and 5 blocked of 18 pairs/);
    const pairs = result.errors.slice(1, -1).map((e) => e.properties.title);
    // The failure that blocked the most comes first; those that blocked none follow in the order of the file.
    expect(pairs).toEqual(["pairflow: root failed", ...lone.slice(0, 7).map((id) => `pairflow: ${id} failed`)]);
    expect(result.errors.at(-1)!.message).toMatch(/^5 more failed pairs are not annotated here .*: the job summary has every failed pair/);
    for (const id of [...lone, "root"]) expect(result.summary).toContain(`<code>${id}</code>`);
  });

  it("annotates every configuration problem at its file, line and column, relative to the repository root", async () => {
    const workspace = tempRepo({
      "ci/flows/workflow.yml": "name: broken\naction_pairs:\n  a:\n    gaurd: regex\n  b:\n    requires: [c]\n",
      "ci/flows/prompts.yml": "zz: {task: x}\n",
    });
    const result = await runAction({ workspace, with: { ...NO_CACHE, "working-directory": "ci", workflow: "flows" } });
    expect(result.code).toBe(1);
    const where = result.errors.map((e) => `${e.properties.file}:${e.properties.line}:${e.properties.col}`);
    expect(where).toEqual(["ci/flows/prompts.yml:1:1", "ci/flows/workflow.yml:4:5", "ci/flows/workflow.yml:6:16"]);
    expect(result.errors.every((e) => e.properties.title === "pairflow: invalid configuration")).toBe(true);
    expect(result.errors[1]!.message).toContain('action_pairs.a.gaurd: unknown key "gaurd"; did you mean "guard"?');
    expect(result.summary).toContain("## pairflow: 3 configuration problems in 2 files");
    expect(result.summary).toContain("- `ci/flows/workflow.yml:4:5` action_pairs.a.gaurd: unknown key");
    expectEveryOutput(result.outputs, { plan: "null", "to-run": "0", "has-changes": "false", executed: "[]", "plan-file": "", "estimated-cost": "" });
  });

  it("annotates at most 10 configuration problems, the last counting the rest, which the job summary lists", async () => {
    const pairs = Array.from({ length: 14 }, (_, i) => `  p${String(i).padStart(2, "0")}:\n    gaurd: regex`);
    const workspace = tempRepo({ "workflow.yml": ["name: broken", "action_pairs:", ...pairs, ""].join("\n") });
    const result = await runAction({ workspace, with: NO_CACHE });
    expect(result.code).toBe(1);
    expect(result.errors).toHaveLength(10);
    expect(result.errors.slice(0, 9).map((e) => e.properties.line)).toEqual(Array.from({ length: 9 }, (_, i) => String(4 + 2 * i)));
    expect(result.errors[9]!.message).toMatch(/^5 more configuration problems are not annotated here .*: the job summary lists every one\.$/);
    expect(result.summary).toContain("## pairflow: 14 configuration problems in 1 file");
    expect(result.summary).toContain("- `workflow.yml:30:5` action_pairs.p13.gaurd: unknown key");
  });

  it("refuses inputs it cannot use, saying which", async () => {
    const result = await runAction({ workspace: copyToTempRepo(EXAMPLE), with: { mode: "apply" } });
    expect(result.code).toBe(1);
    expect(result.errors.map((e) => e.message)).toEqual(['input mode: "apply" is not a mode; use run, plan or merge']);
    expectEveryOutput(result.outputs, { plan: "null", failed: "[]", "run-id": "" });
  });

  it("reads the old input names workflow and concurrency, with a warning to rename them", async () => {
    const workspace = tempRepo({
      "flows/workflow.yml": `name: renamed\ngenerator: command\ngenerator_config: {run: ${GEN}}\naction_pairs:\n  a: {}\n`,
    });
    const result = await runAction({ workspace, with: { ...NO_CACHE, workflow: "flows", concurrency: "2" } });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.outputs.executed!)).toEqual(["a"]);
    expect(result.warnings).toEqual([
      "input concurrency is deprecated (it is one of GitHub's own terms): rename it to max-parallel; it still works for now",
      "input workflow is deprecated (it is one of GitHub's own terms): rename it to path; it still works for now",
    ]);
    const both = await runAction({ workspace, with: { ...NO_CACHE, workflow: "flows", path: "elsewhere" } });
    expect(both.code).toBe(1);
    expect(both.errors.map((e) => e.message)).toEqual([
      "inputs workflow and path are both given, with different values; workflow is the old name of path: keep only path",
    ]);
  });

  it("runs only the pairs named by only", async () => {
    const result = await runAction({ workspace: tddStack(), with: { ...NO_CACHE, only: "g_test" } });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.outputs.executed!)).toEqual(["g_test"]);
  });
});

describe("provider keys", () => {
  it("are masked before anything else is printed, and appear nowhere", async () => {
    const workspace = tempRepo({
      "workflow.yml": [
        "name: keyed",
        "model: gpt-4.1-mini",
        "generator: openai",
        "generator_config: {api_key_env: TEAM_LLM_KEY}",
        "action_pairs:",
        "  a: {}",
        "  b: {generator: anthropic, requires: [a]}",
        "",
      ].join("\n"),
    });
    const secrets = { TEAM_LLM_KEY: "sk-team-9f8e7d6c5b4a", ANTHROPIC_API_KEY: "sk-ant-0a1b2c3d4e5f" };
    const result = await runAction({ workspace, with: { ...NO_CACHE, mode: "plan" }, env: secrets });
    expect(result.code).toBe(0);
    expect(result.masked).toEqual(expect.arrayContaining([...Object.values(secrets), GITHUB_TOKEN]));
    const everything = [result.stdout.replace(/^::add-mask::.*$/gm, ""), result.stderr, result.summary, ...Object.values(result.outputs)].join("\n");
    for (const value of [...Object.values(secrets), GITHUB_TOKEN]) expect(everything).not.toContain(value);
  });
});

describe("plan mode", () => {
  it("executes nothing and reports the plan", async () => {
    const workspace = copyToTempRepo(EXAMPLE);
    const result = await runAction({ workspace, with: { ...NO_CACHE, mode: "plan" } });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.outputs.plan!).totals).toEqual({ pairs: 3, run: 3, skip: 0 });
    expect(result.outputs["run-id"]).toBe("");
    expect(() => readFileSync(path.join(workspace, "out/stack.py"))).toThrow();
    expect(result.summary).toContain("## pairflow plan: tdd-stack");
    expectEveryOutput(result.outputs, { "to-run": "3", "has-changes": "true", "estimated-cost": "0", executed: "[]", "comment-url": "" });
    // The whole plan, with its estimate, in a file for later steps.
    const file = JSON.parse(readFileSync(result.outputs["plan-file"]!, "utf8"));
    expect(file.totals).toMatchObject({ pairs: 3, run: 3, skip: 0, estimate: { pairs: 3 } });
    expect(file.pairs.map((p: { id: string }) => p.id)).toEqual(["g_test", "g_impl", "g_review"]);
    expect(result.summary).toContain("**3 of 3 pairs to run** · estimated cost $0.00 · 0 unchanged · 3 waves");
    expect(result.summary).toMatch(/\| `g_review` \| run \| new: never accepted; upstream: g_test will run; upstream: g_impl will run \| \? \|\n/);
    await checkMermaid(mermaidBlocks(result.summary)[0]!);
  });

  it("says has-changes exactly when pairflow plan --check exits 3: pairs to run, or a committed output that is stale", async () => {
    const workspace = tddStack();
    expect((await runAction({ workspace, with: NO_CACHE })).code).toBe(0);
    const current = await runAction({ workspace, with: { ...NO_CACHE, mode: "plan" } });
    expectEveryOutput(current.outputs, { "to-run": "0", "has-changes": "false", "estimated-cost": "0", executed: "[]", "comment-url": "" });
    // Nothing would run, but a run would write the accepted output back.
    rmSync(path.join(workspace, "out/stack.py"));
    const stale = await runAction({ workspace, with: { ...NO_CACHE, mode: "plan" } });
    expectEveryOutput(stale.outputs, { "to-run": "0", "has-changes": "true", "estimated-cost": "0", executed: "[]", "comment-url": "" });
  });

  it("keeps the job summary under GitHub's 1 MiB for a workflow of thousands of pairs", { timeout: scaled(120_000) }, async () => {
    const workspace = tempRepo();
    generateWorkflow(workspace, 10_000);
    const result = await runAction({ workspace, with: { ...NO_CACHE, mode: "plan" } });
    expect(result.code).toBe(0);
    const size = Buffer.byteLength(result.summary);
    expect(size).toBeLessThanOrEqual(STEP_SUMMARY_LIMIT);
    expect(size).toBeGreaterThan(STEP_SUMMARY_LIMIT * 0.9); // the table fills the room it has
    expect(result.summary).toMatch(/_[\d,]+ of 10,000 pairs not shown: GitHub limits the size of this page._/);
    // Every pair is new: one cause, drawn with the waves it reaches, not 40 of 10,000 boxes.
    expect(result.summary).toContain("\n**new: never accepted** — 10,000 pairs · waves 1–");
    expect(result.summary).toContain("_Condensed: the 10,000 affected pairs as 1 cause and the groups of pairs they reach, each edge counting pairs._");
    expect(JSON.parse(result.outputs.plan!).totals.pairs).toBe(10_000);
  });
});

describe("action.yml", () => {
  const action = parse(readFileSync(path.join(REPO, "action.yml"), "utf8")) as {
    runs: unknown;
    inputs: Record<string, unknown>;
    outputs: Record<string, unknown>;
  };
  const docs = readFileSync(path.join(REPO, "docs/action.md"), "utf8");

  it("runs the bundle on node24, with every input and output documented", () => {
    expect(action.runs).toEqual({ using: "node24", main: "dist/index.js" });
    for (const name of [...Object.keys(action.inputs), ...Object.keys(action.outputs)]) expect(docs).toContain(`| \`${name}\` |`);
  });
});

describe("a cancelled job", () => {
  it("on SIGTERM starts nothing new, lets the pair in flight finish, and still writes its summary and outputs", async () => {
    const workspace = tempRepo({
      // In flight until the action has taken the signal.
      "slow.mjs":
        'import { existsSync } from "node:fs";\nwhile (!existsSync("signal-taken")) await new Promise((r) => setTimeout(r, 10));\nprocess.stdout.write("done " + process.env.PAIRFLOW_PAIR + "\\n");\n',
      "workflow.yml":
        "name: cancel\ngenerator: command\ngenerator_config: {run: node slow.mjs}\naction_pairs:\n  a: {output: a.txt}\n  b: {requires: [a], output: b.txt}\n",
    });
    const result = await runAction({ workspace, with: { cache: "false" }, interrupt: { signal: "SIGTERM", when: /start\s+a\b/, taken: "signal-taken" } });
    expect(result.code).toBe(1);
    expect(result.warnings.some((w) => w.startsWith("SIGTERM: starting nothing new"))).toBe(true);
    expect(JSON.parse(result.outputs.executed!)).toEqual(["a"]);
    expect(result.summary).toContain("interrupted");
    expect(existsSync(path.join(workspace, "a.txt"))).toBe(true);
    expect(existsSync(path.join(workspace, "b.txt"))).toBe(false);
    expect(result.stdout.match(/^::group::/gm)?.length).toBe(result.stdout.match(/^::endgroup::/gm)?.length);
  });
});
