/**
 * The action on pull requests: one sticky comment per workflow, updated in place on every push,
 * through the real @actions/github client against a loopback fake of GitHub's REST API; the job
 * summary when the comment cannot be posted. And the max-cost gate in mode run.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runOf } from "../helpers/state.js";
import { REPO } from "../helpers/fixtures.js";
import { FakeGitHub } from "../pr/fakeGitHub.js";
import { commitAll, gitRepo } from "../pr/repo.js";
import { runAction } from "./runner.js";

let gh: FakeGitHub;
afterEach(async () => {
  await gh?.stop();
});

/** A repository whose main branch holds the example with its accepted state, as a team commits it. */
async function repository(): Promise<{ dir: string; baseSha: string }> {
  const dir = gitRepo({}, { source: path.join(REPO, "examples/tdd-stack"), into: "flows/tdd" });
  await runOf(path.join(dir, "flows/tdd"), { cwd: dir });
  const baseSha = commitAll(dir, "accepted state");
  return { dir, baseSha };
}

function edit(file: string, from: string, to: string): void {
  const text = readFileSync(file, "utf8");
  if (!text.includes(from)) throw new Error(`${file} lacks ${from}`);
  writeFileSync(file, text.replace(from, to));
}

async function planOnPullRequest(dir: string, baseSha: string) {
  return runAction({
    workspace: dir,
    with: { mode: "plan", workflow: "flows/tdd", cache: "false" },
    event: { name: "pull_request", payload: { pull_request: { number: 7, base: { sha: baseSha } } } },
    env: { GITHUB_API_URL: gh.url, GITHUB_REPOSITORY: "o/r", GITHUB_RUN_ID: "42" },
  });
}

describe("mode plan on a pull request", () => {
  it("posts one comment, updates it on the next push, and leaves it correct when nothing changed", async () => {
    gh = new FakeGitHub();
    await gh.start();
    gh.add("a reviewer's comment");
    const { dir, baseSha } = await repository();

    edit(path.join(dir, "flows/tdd/prompts.yml"), "task: Implement the Stack class.", "task: Implement the Stack class with a list.");
    commitAll(dir, "push 1");
    const first = await planOnPullRequest(dir, baseSha);
    expect(first.code).toBe(0);
    const ours = () => gh.comments.filter((c) => c.body.startsWith("<!-- pairflow:plan flows/tdd/workflow.yml -->"));
    expect(ours()).toHaveLength(1);
    const body1 = ours()[0]!.body;
    expect(body1).toMatch(/g_impl.*prompt\.task changed/);
    expect(body1).toContain("-  task: Implement the Stack class.");
    expect(body1).toContain("+  task: Implement the Stack class with a list.");
    expect(body1).toContain("```mermaid");
    expect(first.summary).toContain("prompt.task changed");

    edit(path.join(dir, "flows/tdd/prompts.yml"), "task: Write unit tests", "task: Write thorough unit tests");
    commitAll(dir, "push 2");
    expect((await planOnPullRequest(dir, baseSha)).code).toBe(0);
    expect(ours()).toHaveLength(1);
    const body2 = ours()[0]!.body;
    expect(body2).not.toBe(body1);
    expect(body2).toMatch(/g_test.*prompt\.task changed/);
    expect(gh.comments).toHaveLength(2); // the reviewer's and ours

    commitAll(dir, "push 3: nothing changed");
    gh.requests = [];
    expect((await planOnPullRequest(dir, baseSha)).code).toBe(0);
    expect(ours().map((c) => c.body)).toEqual([body2]);
    expect(gh.requests.filter((r) => !r.startsWith("GET"))).toEqual([]);
  });

  it("writes the plan to the job summary with a notice when the token may not comment, and does not fail", async () => {
    gh = new FakeGitHub();
    await gh.start();
    gh.refuse = 403;
    const { dir, baseSha } = await repository();
    edit(path.join(dir, "flows/tdd/prompts.yml"), "task: Implement the Stack class.", "task: Implement it.");
    commitAll(dir, "push");
    const result = await planOnPullRequest(dir, baseSha);
    expect(result.code).toBe(0);
    expect(gh.comments).toHaveLength(0);
    expect(result.summary).toMatch(/^> \[!NOTE\]\n> The plan could not be posted as a pull request comment \(HTTP 403/);
    expect(result.summary).toContain("prompt.task changed");
    expect(result.annotations.some((a) => a.level === "notice" && a.message.includes("pull-requests: write"))).toBe(true);
  });
});

describe("input max-cost", () => {
  it("refuses a run whose estimate it cannot check or that exceeds it, executing nothing", async () => {
    const { dir } = await repository();
    const runsBefore = readdirSync(path.join(dir, ".pairflow/runs"));
    edit(path.join(dir, "flows/tdd/prompts.yml"), "task: Implement the Stack class.", "task: Implement it.");
    const result = await runAction({ workspace: dir, with: { workflow: "flows/tdd", cache: "false", "max-cost": "0.50" } });
    expect(result.code).toBe(1);
    expect(result.summary).toMatch(
      /^## pairflow run refused\n\nthe cost of g_impl, g_review is unknown \(no price for stand-in-1\), so it cannot be checked against max-cost \$0\.50.*nothing was executed/,
    );
    expect(result.errors.some((e) => e.message.includes("nothing was executed"))).toBe(true);
    expect(readFileSync(path.join(dir, "flows/tdd/out/stack.py"), "utf8")).not.toContain("Implement it.");
    expect(readdirSync(path.join(dir, ".pairflow/runs"))).toEqual(runsBefore); // no run recorded

    // Priced, the estimate is checked: far over the budget, with the breakdown in the summary.
    edit(path.join(dir, "flows/tdd/workflow.yml"), "rmax: 2", "rmax: 2\npricing:\n  stand-in-1: { input: 500, output: 2000 }");
    const priced = await runAction({ workspace: dir, with: { workflow: "flows/tdd", cache: "false", "max-cost": "0.50" } });
    expect(priced.code).toBe(1);
    expect(priced.summary).toMatch(/^## pairflow run refused\n\nthe estimated cost \$[\d.,]+ exceeds max-cost \$0\.50; nothing was executed/);
    expect(priced.summary).toMatch(/^\| `g_impl` \| stand-in-1 \|/m);

    const generous = await runAction({ workspace: dir, with: { workflow: "flows/tdd", cache: "false", "max-cost": "100" } });
    expect(generous.code).toBe(0);
    expect(JSON.parse(generous.outputs.executed!)).toEqual(["g_impl", "g_review"]);
  });
});
