/**
 * The action on pull requests: one sticky comment per workflow, updated in place on every push,
 * through the real @actions/github client against a loopback fake of GitHub's REST API; the job
 * summary when the comment cannot be posted. And the max-cost gate in mode run.
 */
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runOf } from "../helpers/state.js";
import { ACTIONS_BOT, FakeGitHub, REVIEWER } from "../pr/fakeGitHub.js";
import { cli, commitAll, git, gitRepo } from "../pr/repo.js";
import { runAction } from "./runner.js";
import { tddStackSource } from "./tddStack.js";
import { runCli } from "../../src/cli/program.js";
import { rerunCauses } from "./comment.js";
import { expectEveryOutput } from "./outputs.js";
import { scaled } from "../helpers/time.js";

let gh: FakeGitHub;
afterEach(async () => {
  await gh?.stop();
});

/** A repository whose main branch holds the example (its model a shell script) with its accepted state, as a team commits it. */
async function repository(): Promise<{ dir: string; baseSha: string }> {
  const dir = gitRepo({}, { source: tddStackSource(), into: "flows/tdd" });
  await runOf(path.join(dir, "flows/tdd"), { cwd: dir });
  const baseSha = commitAll(dir, "accepted state");
  return { dir, baseSha };
}

function edit(file: string, from: string, to: string): void {
  const text = readFileSync(file, "utf8");
  if (!text.includes(from)) throw new Error(`${file} lacks ${from}`);
  writeFileSync(file, text.replace(from, to));
}

/** The plan `pairflow plan` makes on the head, pair by pair, and the plan output of the action, which must be the same. */
async function planOnHead(dir: string, output: string): Promise<{ cli: string[]; action: string[]; run: string[] }> {
  type P = { id: string; action: string; configRef: string | null; reasons: unknown[] };
  const line = (p: P) => `${p.id} ${p.action} ${p.configRef} ${JSON.stringify(p.reasons)}`;
  const local = JSON.parse((await cli(["plan", "flows/tdd", "--json"], dir)).stdout) as { pairs: P[] };
  const action = JSON.parse(output) as { pairs: P[] };
  return { cli: local.pairs.map(line), action: action.pairs.map(line), run: action.pairs.filter((p) => p.action === "run").map((p) => p.id) };
}

let runIds = 100;

/**
 * The plan job of a pull request whose head is `dir`'s HEAD; each call is a new workflow run (its
 * run id grows), unless `run` names one, as a re-run does.
 */
async function planOnPullRequest(dir: string, baseSha: string, options: { run?: { id: number; attempt: number }; with?: Record<string, string> } = {}) {
  const headSha = git(dir, "rev-parse", "HEAD");
  const run = options.run ?? { id: runIds++, attempt: 1 };
  return runAction({
    workspace: dir,
    with: { mode: "plan", path: "flows/tdd", cache: "false", ...options.with },
    event: { name: "pull_request", payload: { pull_request: { number: 7, base: { sha: baseSha }, head: { sha: headSha } } } },
    env: { GITHUB_API_URL: gh.url, GITHUB_REPOSITORY: "o/r", GITHUB_RUN_ID: String(run.id), GITHUB_RUN_ATTEMPT: String(run.attempt) },
  });
}

const OURS = "<!-- pairflow:plan flows/tdd/workflow.yml -->";

const TIMEOUT = scaled(60_000);

describe("mode plan on a pull request", () => {
  it("posts one comment, updates it on the next push, and leaves it correct when nothing changed", { timeout: TIMEOUT }, async () => {
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
    // The first line a reader sees names the commit planned and the cost.
    const head1 = git(dir, "rev-parse", "HEAD");
    expect(body1.split("\n")[1]).toBe(`<!-- pairflow:planned ${head1} run ${runIds - 1} attempt 1 -->`);
    expect(body1.split("\n")[2]).toBe(
      `### pairflow plan of \`tdd-stack\` at [\`${head1.slice(0, 7)}\`](https://github.com/o/r/commit/${head1}): 2 pairs will re-run after merging, estimated cost $0.00`,
    );
    expect(first.outputs).toMatchObject({ "to-run": "2", "has-changes": "true", "estimated-cost": "0", "comment-url": ours()[0]!.html_url });
    expect(body1).toContain("**prompt of `g_impl` (task)** — 1 pair + 1 downstream · waves 2–3");
    expect(body1).toContain("-  task: Implement the Stack class.");
    expect(body1).toContain("+  task: Implement the Stack class with a list.");
    expect(body1).toContain("```mermaid");
    expect(first.summary).toContain("**prompt of `g_impl` (task)**");
    // Every pair that will re-run is named, in the comment and the job summary alike, collapsed.
    for (const text of [body1, first.summary])
      expect(text).toContain(
        "<details><summary>All 2 pairs that will re-run, by wave</summary>\n\n- wave 2 (1): `g_impl`\n- wave 3 (1): `g_review`\n\n</details>",
      );
    // The comment, the action's plan output and `pairflow plan` on the head agree pair by pair.
    const plan1 = await planOnHead(dir, first.outputs.plan!);
    expect(plan1.action).toEqual(plan1.cli);
    expect(rerunCauses(body1)).toEqual({ named: ["g_impl"], count: plan1.run.length });
    expect(plan1.run).toEqual(["g_impl", "g_review"]);
    // `pairflow diff --format markdown` in the same job prints the comment's very text, but for its hidden stamp.
    let local = "";
    const env = { GITHUB_SERVER_URL: "https://github.com", GITHUB_REPOSITORY: "o/r", GITHUB_RUN_ID: String(runIds - 1) };
    const status = await runCli(["diff", "flows/tdd", "--base", baseSha, "--format", "markdown"], {
      stdout: { write: (text: string) => (local += text) },
      stderr: { write: () => true },
      cwd: dir,
      env,
    });
    expect(status).toBe(0);
    expect(local).toBe(
      body1
        .split("\n")
        .filter((_, i) => i !== 1)
        .join("\n"),
    );

    edit(path.join(dir, "flows/tdd/prompts.yml"), "task: Write unit tests", "task: Write thorough unit tests");
    commitAll(dir, "push 2");
    expect((await planOnPullRequest(dir, baseSha)).code).toBe(0);
    expect(ours()).toHaveLength(1);
    const body2 = ours()[0]!.body;
    expect(body2).not.toBe(body1);
    // Each edited prompt is a cause of its own, naming its pair, g_review following from both.
    expect(body2).toContain("**prompt of `g_test` (task)** — 1 pair + 1 downstream · waves 1–3");
    expect(body2).toContain("**prompt of `g_impl` (task)** — 1 pair + 1 downstream · waves 2–3");
    expect(gh.comments).toHaveLength(2); // the reviewer's and ours

    // The job run again on the same commit: the same plan, nothing written.
    gh.requests = [];
    const again = await planOnPullRequest(dir, baseSha);
    expect(again.code).toBe(0);
    expect(ours().map((c) => c.body)).toEqual([body2]);
    expect(gh.writes).toEqual([]);
    expect(again.outputs["comment-url"]).toBe(ours()[0]!.html_url);
  });

  it("says nothing will re-run after merging when the branch ran its change and committed the outputs and lock file", async () => {
    gh = new FakeGitHub();
    await gh.start();
    const { dir, baseSha } = await repository();
    edit(path.join(dir, "flows/tdd/prompts.yml"), "task: Implement the Stack class.", "task: Implement the Stack class with a list.");
    await runOf(path.join(dir, "flows/tdd"), { cwd: dir });
    commitAll(dir, "a list, regenerated");
    // A runner starts with no local store: only what the branch committed counts.
    rmSync(path.join(dir, ".pairflow"), { recursive: true, force: true });

    const result = await planOnPullRequest(dir, baseSha);
    expect(result.code).toBe(0);
    expect(gh.comments).toHaveLength(1);
    const body = gh.comments[0]!.body;
    expect(body).toContain("**Nothing will re-run after merging**: 2 changed and already accepted, 1 unchanged.");
    expect(body).not.toContain("#### Will re-run");
    expect(body).not.toContain("edited by hand");
    expect(body).toContain("#### Changed in this pull request, already accepted");
    expect(body).toContain("| `g_impl` | 2 | prompt: prompt.task changed | regenerated and committed on the branch |");
    expect(body).toMatch(/^\| `g_review` \| 3 \| upstream: g_impl's reference changed; .* \| regenerated and committed on the branch \|$/m);
    expect(body).toContain("-  task: Implement the Stack class.\n+  task: Implement the Stack class with a list.\n");
    expect(body).not.toContain("Estimated cost");

    const plan = await planOnHead(dir, result.outputs.plan!);
    expect(plan.action).toEqual(plan.cli);
    expect(plan.run).toEqual([]);
    expect(rerunCauses(body)).toEqual({ named: [], count: 0 });
    expect(JSON.parse(result.outputs.plan!).totals).toMatchObject({ pairs: 3, run: 0, skip: 3 });
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
    expect(result.summary).toContain("**prompt of `g_impl` (task)**");
    expect(result.annotations.some((a) => a.level === "notice" && a.message.includes("pull-requests: write"))).toBe(true);
  });
});

describe("a comment forged by a participant of the pull request", () => {
  it("carrying pairflow's marker and a later run's stamp does not stop the job's own comment, and the log names it", { timeout: TIMEOUT }, async () => {
    gh = new FakeGitHub();
    await gh.start();
    const { dir, baseSha } = await repository();
    edit(path.join(dir, "flows/tdd/prompts.yml"), "task: Implement the Stack class.", "task: Implement it.");
    commitAll(dir, "push");
    const head = git(dir, "rev-parse", "HEAD");
    const forged = `${OURS}\n<!-- pairflow:planned ${head} run 999999999 attempt 9 -->\n### pairflow plan\n\n**Nothing will re-run after merging**\n`;
    gh.add(forged, REVIEWER);

    const result = await planOnPullRequest(dir, baseSha);
    expect(result.code).toBe(0);
    const ours = gh.comments.filter((c) => c.user.login === ACTIONS_BOT.login);
    expect(ours).toHaveLength(1);
    expect(ours[0]!.body).toContain("2 pairs will re-run after merging");
    expect(result.outputs["comment-url"]).toBe(ours[0]!.html_url);
    expect(gh.comments.find((c) => c.user.login === REVIEWER.login)?.body).toBe(forged);
    expect(result.warnings.join("\n")).toContain(`comments carrying this workflow's plan marker by @${REVIEWER.login} are not pairflow's and were ignored`);
  });
});

describe("racing plan jobs", () => {
  /** Two checkouts of the pull request: an older push and a newer one. */
  async function twoPushes(): Promise<{ older: string; newer: string; baseSha: string }> {
    const { dir, baseSha } = await repository();
    edit(path.join(dir, "flows/tdd/prompts.yml"), "task: Implement the Stack class.", "task: Implement it.");
    commitAll(dir, "push 1");
    const older = path.join(dir, "..", `${path.basename(dir)}-older`);
    git(dir, "clone", "-q", dir, older);
    edit(path.join(dir, "flows/tdd/prompts.yml"), "task: Write unit tests", "task: Write thorough unit tests");
    commitAll(dir, "push 2");
    return { older, newer: dir, baseSha };
  }

  it("two plan jobs at once leave one comment, showing the newer push, and a re-run of the older job does not overwrite it", { timeout: TIMEOUT }, async () => {
    gh = new FakeGitHub();
    await gh.start();
    gh.add("a reviewer's comment");
    const { older, newer, baseSha } = await twoPushes();
    const newerSha = git(newer, "rev-parse", "HEAD");
    // Both jobs list the comments before either has written: both create one.
    gh.holdFirstLists(2);
    const [a, b] = await Promise.all([
      planOnPullRequest(older, baseSha, { run: { id: 500, attempt: 1 } }),
      planOnPullRequest(newer, baseSha, { run: { id: 501, attempt: 1 } }),
    ]);
    expect([a.code, b.code]).toEqual([0, 0]);
    const ours = gh.comments.filter((c) => c.body.startsWith(OURS));
    expect(ours).toHaveLength(1);
    expect(ours[0]!.body.split("\n")[1]).toBe(`<!-- pairflow:planned ${newerSha} run 501 attempt 1 -->`);
    expect(ours[0]!.body).toContain("**prompt of `g_test` (task)** — 1 pair");
    expect(gh.comments).toHaveLength(2);
    expect(gh.writes.filter((r) => r.startsWith("POST"))).toHaveLength(2);
    // The newer job points to the comment left. (The older one does too when it listed again after the
    // newer one wrote; one that finished first names the comment it wrote, since deleted.)
    expect(b.outputs["comment-url"]).toBe(ours[0]!.html_url);
    expect(a.outputs["comment-url"]).toMatch(/^https:\/\/github\.test\//);

    // The older job re-run later: the comment shows a newer push, so it is left as it is.
    gh.requests = [];
    const rerun = await planOnPullRequest(older, baseSha, { run: { id: 500, attempt: 2 } });
    expect(rerun.code).toBe(0);
    expect(gh.writes).toEqual([]);
    expect(gh.comments.filter((c) => c.body.startsWith(OURS)).map((c) => c.body)).toEqual([ours[0]!.body]);
    expect(rerun.stdout).toContain("plan comment left as it is: it shows the plan of a newer push");
  });

  it("with comment: false posts nothing and still writes the plan to the job summary", async () => {
    gh = new FakeGitHub();
    await gh.start();
    const { newer, baseSha } = await twoPushes();
    const result = await planOnPullRequest(newer, baseSha, { with: { comment: "false" } });
    expect(result.code).toBe(0);
    expect(gh.requests).toEqual([]);
    expect(result.outputs["comment-url"]).toBe("");
    expect(result.summary).toMatch(/^### pairflow plan of `tdd-stack` at \[`[0-9a-f]{7}`\]\(.*\): 3 pairs will re-run after merging, estimated cost \$0\.00$/m);
  });
});

describe("a pull request base the checkout cannot fetch", () => {
  it("fails saying what to change in the workflow, with git's own error, and every output set", async () => {
    gh = new FakeGitHub();
    await gh.start();
    const { dir } = await repository();
    const missing = "0123456789abcdef0123456789abcdef01234567";
    const result = await planOnPullRequest(dir, missing);
    expect(result.code).toBe(1);
    const [error] = result.errors.map((e) => e.message);
    expect(error).toContain(`the pull request's base commit ${missing} is not in this checkout`);
    expect(error).toContain("fetch-depth: 0");
    expect(error).toContain("permissions: contents: read");
    // git's words, whatever its version: there is no remote called origin in this clone.
    expect(error).toMatch(/git: .*origin/);
    expect(result.summary).toMatch(/^git said:\n\n```text\n.*origin/m);
    expectEveryOutput(result.outputs, { plan: "null", "to-run": "0", "comment-url": "" });
    expect(gh.comments).toEqual([]);
  });
});

describe("input max-cost", () => {
  it("refuses a run whose estimate it cannot check or that exceeds it, executing nothing", async () => {
    const { dir } = await repository();
    const runsBefore = readdirSync(path.join(dir, ".pairflow/runs"));
    edit(path.join(dir, "flows/tdd/prompts.yml"), "task: Implement the Stack class.", "task: Implement it.");
    // The example prices its stand-in at zero: unpriced, its cost cannot be checked.
    edit(path.join(dir, "flows/tdd/workflow.yml"), "  stand-in-1: {input: 0, output: 0}", "  {}");
    const result = await runAction({ workspace: dir, with: { workflow: "flows/tdd", cache: "false", "max-cost": "0.50" } });
    expect(result.code).toBe(1);
    expect(result.summary).toMatch(
      /^## pairflow run refused\n\nthe cost of g_impl, g_review is unknown \(no price for stand-in-1\), so it cannot be checked against max-cost \$0\.50.*nothing was executed/,
    );
    expect(result.errors.some((e) => e.message.includes("nothing was executed"))).toBe(true);
    expect(readFileSync(path.join(dir, "flows/tdd/out/stack.py"), "utf8")).not.toContain("Implement it.");
    expect(readdirSync(path.join(dir, ".pairflow/runs"))).toEqual(runsBefore); // no run recorded
    // The plan was made: its outputs are set; the run's are empty, never missing.
    expectEveryOutput(result.outputs, { "to-run": "2", "has-changes": "true", executed: "[]", failed: "[]", "run-id": "" });
    expect(JSON.parse(result.outputs.plan!).totals).toMatchObject({ run: 2 });

    // Priced, the estimate is checked: far over the budget, with the breakdown in the summary.
    edit(path.join(dir, "flows/tdd/workflow.yml"), "pricing:\n  {}", "pricing:\n  stand-in-1: { input: 500, output: 2000 }");
    const priced = await runAction({ workspace: dir, with: { workflow: "flows/tdd", cache: "false", "max-cost": "0.50" } });
    expect(priced.code).toBe(1);
    expect(priced.summary).toMatch(/^## pairflow run refused\n\nthe estimated cost \$[\d.,]+ exceeds max-cost \$0\.50; nothing was executed/);
    expect(priced.summary).toMatch(/^\| `g_impl` \| stand-in-1 \|/m);
    expect(Number(priced.outputs["estimated-cost"])).toBeGreaterThan(0.5);

    const generous = await runAction({ workspace: dir, with: { workflow: "flows/tdd", cache: "false", "max-cost": "100" } });
    expect(generous.code).toBe(0);
    expect(JSON.parse(generous.outputs.executed!)).toEqual(["g_impl", "g_review"]);
  });
});
