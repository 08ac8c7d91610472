import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { willRun } from "../../src/diff/diff.js";
import { planDiff } from "../../src/app/diff.js";
import { copySources, REPO } from "../helpers/fixtures.js";
import { acceptAll, runOf } from "../helpers/state.js";
import { cli, commitAll, git, gitRepo } from "./repo.js";

const EXAMPLE = path.join(REPO, "examples/tdd-stack");
const WF = "flows/tdd";

/** The example in flows/tdd/ of a repository whose main branch has every pair accepted; on branch feature. */
async function acceptedExample(): Promise<string> {
  const dir = gitRepo({}, { source: EXAMPLE, into: WF });
  await acceptAll(path.join(dir, WF));
  commitAll(dir, "accept every pair");
  git(dir, "checkout", "-q", "-b", "feature");
  return dir;
}

function edit(file: string, change: (text: string) => string): void {
  const before = readFileSync(file, "utf8");
  const after = change(before);
  if (after === before) throw new Error(`the edit changed nothing in ${file}`);
  writeFileSync(file, after);
}

const workflowFile = (dir: string) => path.join(dir, WF, "workflow.yml");
const promptsFile = (dir: string) => path.join(dir, WF, "prompts.yml");

/** The example run for real on main, its lock file and outputs committed, as a team works; on branch feature. */
async function ranExample(): Promise<string> {
  const dir = gitRepo({}, { source: EXAMPLE, into: WF });
  const report = await runOf(path.join(dir, WF), { cwd: dir });
  expect(report.status).toBe("success");
  commitAll(dir, "run every pair");
  git(dir, "checkout", "-q", "-b", "feature");
  return dir;
}

const BETTER_TASK = (t: string) => t.replace("task: Implement the Stack class.", "task: Implement the Stack class, with type hints.");

type PairJson = { id: string; action: string; configRef: string | null; reasons: unknown[]; sinceBase: unknown };

/** Each pair's action and reference in `pairflow plan --json` and in `pairflow diff --json`, which must be the same. */
async function planAndDiff(dir: string): Promise<{ plan: string[]; diff: string[]; json: { pairs: PairJson[]; totals: unknown } }> {
  const plan = JSON.parse((await cli(["plan", WF, "--json"], dir)).stdout) as { pairs: PairJson[] };
  const json = JSON.parse((await cli(["diff", WF, "--base", "main", "--json"], dir)).stdout) as { pairs: PairJson[]; totals: unknown };
  const line = (p: PairJson) => `${p.id} ${p.action} ${p.configRef} ${JSON.stringify(p.reasons)}`;
  return { plan: plan.pairs.map(line), diff: json.pairs.map(line), json };
}

describe("pairflow diff --base", () => {
  it("shows the pairs a prompt change re-runs, why, and the prompt's diff", async () => {
    const dir = await acceptedExample();
    edit(promptsFile(dir), (t) => t.replace("task: Implement the Stack class.", "task: Implement the Stack class, with type hints."));
    commitAll(dir, "ask for type hints");

    const r = await cli(["diff", WF, "--base", "main"], dir);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("2 to re-run after merging, 1 unchanged; 0 added, 0 removed");
    expect(r.stdout).toMatch(/^ {2}g_impl {4}wave 2 {2}prompt: prompt\.task changed$/m);
    expect(r.stdout).toMatch(/^ {2}g_review {2}wave 3 {2}upstream: g_impl will run$/m);
    expect(r.stdout).not.toMatch(/^ {2}g_test/m);
    expect(r.stdout).toContain("prompt of g_impl (changed)\n--- a/flows/tdd/prompts.yml\n+++ b/flows/tdd/prompts.yml\n@@ -1,7 +1,7 @@\n g_impl:\n");
    expect(r.stdout).toContain("\n-  task: Implement the Stack class.\n+  task: Implement the Stack class, with type hints.\n");
    // Only the entry that changed is shown.
    expect(r.stdout).not.toContain("of g_test");
    expect(r.stdout).not.toContain("of g_review");
  });

  it("lists an added pair, which runs as new while the others are reused, with its entries as added", async () => {
    const dir = await acceptedExample();
    edit(workflowFile(dir), (t) =>
      t.replace(
        "\n\n# What the model costs",
        "\n  g_docs:\n    requires: [g_impl]\n    guard: contains\n    guard_config: { text: Stack }\n\n# What the model costs",
      ),
    );
    edit(promptsFile(dir), (t) => t + "\ng_docs:\n  task: Document the Stack class.\n");
    commitAll(dir, "add docs");

    const r = await cli(["diff", WF, "--base", "main"], dir);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("1 to re-run after merging, 3 unchanged; 1 added, 0 removed");
    expect(r.stdout).toMatch(/^ {2}g_docs {2}wave 3 {2}new: never accepted$/m);
    expect(r.stdout).toMatch(/^Added: g_docs$/m);
    expect(r.stdout).toContain(
      "configuration of g_docs (added)\n--- a/flows/tdd/workflow.yml\n+++ b/flows/tdd/workflow.yml\n@@ -0,0 +1,6 @@\n+g_docs:\n+  requires:\n+    - g_impl\n",
    );
    expect(r.stdout).toContain(
      "prompt of g_docs (added)\n--- a/flows/tdd/prompts.yml\n+++ b/flows/tdd/prompts.yml\n@@ -0,0 +1,2 @@\n+g_docs:\n+  task: Document the Stack class.\n",
    );
  });

  it("lists a removed pair and shows its entries as removed; nothing re-runs", async () => {
    const dir = await acceptedExample();
    edit(workflowFile(dir), (t) => t.slice(0, t.indexOf("\n  g_review:")) + "\n");
    edit(promptsFile(dir), (t) => t.slice(0, t.indexOf("\ng_review:")) + "\n");
    commitAll(dir, "no more reviews");

    const r = await cli(["diff", WF, "--base", "main"], dir);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("0 to re-run after merging, 2 unchanged; 0 added, 1 removed");
    expect(r.stdout).not.toContain("Will re-run");
    expect(r.stdout).toMatch(/^Removed: g_review$/m);
    const removal = r.stdout.slice(r.stdout.indexOf("configuration of g_review (removed)"));
    expect(removal).toContain(
      "--- a/flows/tdd/workflow.yml\n+++ b/flows/tdd/workflow.yml\n@@ -1,9 +0,0 @@\n-g_review:\n-  description: A short review of the implementation against the tests\n",
    );
    expect(r.stdout).toContain("prompt of g_review (removed)");
  });

  it("shows nothing to re-run and no entry diff for a change of formatting only", async () => {
    const dir = await acceptedExample();
    // A comment, another quoting style, and keys in another order: no reference changes, and nothing to show.
    edit(workflowFile(dir), (t) => t.replace("  g_test:\n", "  # the tests come first\n  g_test:\n").replace('pattern: "^def test_"', "pattern: '^def test_'"));
    edit(promptsFile(dir), (t) =>
      t
        .replace("g_review:\n  role: You are a careful code reviewer.\n  task: >-\n", "g_review:\n  task: >-\n")
        .replace(/("Verdict: approve" or "Verdict: changes requested"\.)\n?$/, "$1\n  role: You are a careful code reviewer.\n"),
    );
    commitAll(dir, "tidy");

    const r = await cli(["diff", WF, "--base", "main"], dir);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("0 to re-run after merging, 3 unchanged; 0 added, 0 removed");
    expect(r.stdout).toContain("No workflow or prompts entry differs from main.");
    expect(r.stdout).not.toContain("---");

    const json = JSON.parse((await cli(["diff", WF, "--base", "main", "--json"], dir)).stdout);
    expect(json.totals).toEqual({ pairs: 3, run: 0, skip: 3, accepted: 0, added: 0, removed: 0 });
    expect(json.changes).toEqual([]);
  });

  it("writes the versioned JSON object with --json", async () => {
    const dir = await acceptedExample();
    const mainCommit = git(dir, "rev-parse", "main");
    edit(promptsFile(dir), (t) => t.replace("task: Implement the Stack class.", "task: Implement a Stack."));
    commitAll(dir, "shorter");

    const r = await cli(["diff", WF, "--base", "main", "--json"], dir);
    expect(r.status).toBe(0);
    const json = JSON.parse(r.stdout);
    expect(Object.keys(json)).toEqual(["version", "workflow", "base", "waves", "pairs", "added", "removed", "changes", "totals"]);
    expect(json.version).toBe(1);
    expect(json.workflow).toEqual({ name: "tdd-stack", path: "flows/tdd/workflow.yml", workflowRef: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(json.base).toEqual({ ref: "main", commit: mainCommit, workflowFound: true });
    expect(json.pairs.map((p: { id: string; action: string }) => `${p.id}:${p.action}`)).toEqual(["g_test:skip", "g_impl:run", "g_review:run"]);
    expect(json.pairs[1].reasons).toMatchObject([{ kind: "prompt", detail: "prompt.task changed", component: { kind: "prompt" as const, name: "task" } }]);
    expect(json.changes).toEqual([
      { kind: "prompt", id: "g_impl", change: "changed", patch: expect.stringContaining("-  task: Implement the Stack class.\n+  task: Implement a Stack.\n") },
    ]);
    expect(json.totals).toEqual({ pairs: 3, run: 2, skip: 1, accepted: 0, added: 0, removed: 0 });
  });

  it("prints the pull request comment's text with --format markdown", async () => {
    const dir = await acceptedExample();
    edit(workflowFile(dir), (t) =>
      t.replace(
        "\n\n# What the model costs",
        "\n  g_docs:\n    requires: [g_impl]\n    guard: contains\n    guard_config: { text: Stack }\n\n# What the model costs",
      ),
    );
    commitAll(dir, "add docs");

    const r = await cli(["diff", WF, "--base", "main", "--format", "markdown"], dir);
    expect(r.status).toBe(0);
    const lines = r.stdout.split("\n");
    expect(lines[0]).toBe("<!-- pairflow:plan flows/tdd/workflow.yml -->");
    expect(r.stdout).toContain("**1 pair will re-run after merging**, 3 unchanged. 1 pair added, 0 removed.");
    // As the comment's first line: the commit planned (here HEAD) and the estimated cost.
    const head = git(dir, "rev-parse", "HEAD");
    expect(lines[1]).toBe(`### pairflow plan of \`tdd-stack\` at \`${head.slice(0, 7)}\`: 1 pair will re-run after merging, estimated cost $0.00`);
    // The cause, and the entry that explains it right under it.
    expect(r.stdout).toContain(
      "#### Will re-run, by cause\n\n**new pair `g_docs`** — 1 pair · wave 3\n\n<details><summary>configuration of <code>g_docs</code> (added)</summary>\n\n```diff\n--- a/flows/tdd/workflow.yml\n",
    );
    expect(r.stdout).toContain("#### Added pairs\n\n`g_docs`\n");
    // The graph highlights the pair that will run.
    const graph = r.stdout.slice(r.stdout.indexOf("```mermaid\n"));
    expect(graph).toContain('  p3["▶ g_docs"]');
    expect(graph).toContain("  p1 --> p3");
    expect(graph).toMatch(/^ {2}class p3 run$/m);
    expect(graph).toMatch(/^ {2}class p0,p1,p2 skip$/m);
  });

  it("treats every pair as added when the workflow does not exist at the base", async () => {
    const dir = gitRepo({ "README.md": "nothing here yet\n" });
    git(dir, "checkout", "-q", "-b", "feature");
    copySources(EXAMPLE, path.join(dir, WF));
    commitAll(dir, "first workflow");

    const r = await cli(["diff", WF, "--base", "main"], dir);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("flows/tdd/workflow.yml does not exist at main: every pair is added");
    expect(r.stdout).toContain("3 to re-run after merging, 0 unchanged; 3 added, 0 removed");
    expect(r.stdout).toMatch(/^Added: g_test, g_impl, g_review$/m);
    expect(r.stdout).toContain("workflow settings (added)");
  });

  it("exits 2 with a clear message outside a git repository, for an unknown ref, and without --base", async () => {
    const plain = mkdtempSync(path.join(tmpdir(), "pairflow-nogit-"));
    copySources(EXAMPLE, plain);
    const outside = await cli(["diff", "--base", "main"], plain);
    expect(outside.status).toBe(2);
    expect(outside.stderr).toMatch(/^error \. is not inside a git repository; pairflow diff reads the base revision with git\n$/);
    expect(outside.stdout).toBe("");

    const dir = await acceptedExample();
    const unknown = await cli(["diff", WF, "--base", "no-such-branch"], dir);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain('unknown git ref "no-such-branch"');

    const missing = await cli(["diff", WF], dir);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain("required option '--base <ref>' not specified");

    const both = await cli(["diff", WF, "--base", "main", "--json", "--format", "markdown"], dir);
    expect(both.status).toBe(2);
    expect(both.stderr).toContain("--json and --format cannot be combined");
  });

  it("names the base's lock file when it is not valid", async () => {
    const dir = gitRepo({}, { source: EXAMPLE, into: WF });
    writeFileSync(path.join(dir, WF, "workflow.lock.json"), "{ not json");
    commitAll(dir, "broken lock");
    git(dir, "checkout", "-q", "-b", "feature");
    const r = await cli(["diff", WF, "--base", "main"], dir);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^error main:flows\/tdd\/workflow\.lock\.json:1:3: the lock file is not valid JSON/);
  });

  it("fetches a base that a shallow clone lacks when asked to, as the action does", async () => {
    const dir = await acceptedExample();
    const base = git(dir, "rev-parse", "main");
    edit(promptsFile(dir), (t) => t.replace("task: Implement the Stack class.", "task: Implement a Stack."));
    commitAll(dir, "shorter");
    const clone = path.join(mkdtempSync(path.join(tmpdir(), "pairflow-clone-")), "repo");
    git(dir, "clone", "-q", "--depth", "1", "--branch", "feature", `file://${dir}`, clone);

    await expect(planDiff(path.join(clone, WF), { base, cwd: process.cwd() })).rejects.toThrow(`unknown git ref "${base}"`);
    const diff = await planDiff(path.join(clone, WF), { base, fetch: true, cwd: process.cwd() });
    expect(willRun(diff).map((p) => p.id)).toEqual(["g_impl", "g_review"]);
    expect(diff.changes.map((c) => `${c.kind} ${c.id}`)).toEqual(["prompt g_impl"]);
  });
});

describe("the pull request's plan is the plan main makes after merging", () => {
  it("re-runs nothing for a branch that ran its change and committed the outputs and lock file, and still shows the prompt's diff", async () => {
    const dir = await ranExample();
    edit(promptsFile(dir), BETTER_TASK);
    const run = await runOf(path.join(dir, WF), { cwd: dir });
    expect(run.pairs.map((p) => `${p.id}:${p.status}`)).toEqual(["g_test:reused", "g_impl:executed", "g_review:executed"]);
    commitAll(dir, "type hints, regenerated");
    // What CI sees: the committed files, and no local store.
    rmSync(path.join(dir, ".pairflow"), { recursive: true, force: true });

    const r = await cli(["diff", WF, "--base", "main"], dir);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("0 to re-run after merging, 2 already accepted, 1 unchanged; 0 added, 0 removed");
    expect(r.stdout).not.toContain("Will re-run");
    expect(r.stdout).toContain("Changed, already accepted (merging re-runs nothing for these)\n");
    expect(r.stdout).toMatch(/^ {2}g_impl {4}wave 2 {2}prompt: prompt\.task changed \(regenerated and committed on the branch\)$/m);
    expect(r.stdout).toMatch(
      /^ {2}g_review {2}wave 3 {2}upstream: g_impl's reference changed; upstream_artifact: g_impl's accepted content changed \(regenerated and committed on the branch\)$/m,
    );
    expect(r.stdout).not.toMatch(/^ {2}g_test/m);
    expect(r.stdout).toContain("\n-  task: Implement the Stack class.\n+  task: Implement the Stack class, with type hints.\n");

    const { plan, diff, json } = await planAndDiff(dir);
    expect(diff).toEqual(plan);
    expect(json.totals).toEqual({ pairs: 3, run: 0, skip: 3, accepted: 2, added: 0, removed: 0 });
    expect(json.pairs.map((p) => [p.id, p.sinceBase])).toMatchObject([
      ["g_test", { changed: false, changes: [], accepted: null }],
      [
        "g_impl",
        {
          changed: true,
          changes: [{ kind: "prompt", detail: "prompt.task changed", component: { kind: "prompt" as const, name: "task" } }],
          accepted: "committed",
        },
      ],
      [
        "g_review",
        {
          changed: true,
          changes: [
            { kind: "upstream", detail: "g_impl's reference changed" },
            { kind: "upstream_artifact", detail: "g_impl's accepted content changed" },
          ],
          accepted: "committed",
        },
      ],
    ]);

    const md = (await cli(["diff", WF, "--base", "main", "--format", "markdown"], dir)).stdout;
    expect(md).toContain("**Nothing will re-run after merging**: 2 changed and already accepted, 1 unchanged. 0 pairs added, 0 removed.");
    expect(md).not.toContain("#### Will re-run");
    expect(md).toContain("#### Changed in this pull request, already accepted\n\nMerging re-runs nothing for these.\n");
    expect(md).toContain("| `g_impl` | 2 | prompt: prompt.task changed | regenerated and committed on the branch |");
    expect(md).toContain("+  task: Implement the Stack class, with type hints.");
    expect(md).toMatch(/^ {2}class p0,p1,p2 skip$/m);
  });

  it("re-runs a pair whose prompt changed without a run, and its dependents, with the reasons", async () => {
    const dir = await ranExample();
    edit(promptsFile(dir), BETTER_TASK);
    commitAll(dir, "type hints");

    const r = await cli(["diff", WF, "--base", "main"], dir);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("2 to re-run after merging, 1 unchanged; 0 added, 0 removed");
    expect(r.stdout).toMatch(/^ {2}g_impl {4}wave 2 {2}prompt: prompt\.task changed$/m);
    expect(r.stdout).toMatch(/^ {2}g_review {2}wave 3 {2}upstream: g_impl will run$/m);
    expect(r.stdout).not.toContain("already accepted");

    const { plan, diff, json } = await planAndDiff(dir);
    expect(diff).toEqual(plan);
    expect(json.totals).toEqual({ pairs: 3, run: 2, skip: 1, accepted: 0, added: 0, removed: 0 });
    expect(json.pairs.map((p) => [p.id, p.sinceBase])).toMatchObject([
      ["g_test", { changed: false, changes: [], accepted: null }],
      [
        "g_impl",
        { changed: true, changes: [{ kind: "prompt", detail: "prompt.task changed", component: { kind: "prompt" as const, name: "task" } }], accepted: null },
      ],
      ["g_review", { changed: true, changes: [{ kind: "upstream", detail: "g_impl will run" }], accepted: null }],
    ]);
  });

  it("keeps an output edited by hand on the branch, and re-runs its dependents", async () => {
    const dir = await ranExample();
    const tests = path.join(dir, WF, "out/test_stack.py");
    writeFileSync(tests, readFileSync(tests, "utf8") + "\n\ndef test_peek_after_push():\n    pass\n");
    commitAll(dir, "one more test, by hand");

    const r = await cli(["diff", WF, "--base", "main"], dir);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("2 to re-run after merging, 1 already accepted, 0 unchanged; 0 added, 0 removed");
    expect(r.stdout).toMatch(/^ {2}g_impl {4}wave 2 {2}upstream_artifact: g_test's output was edited by hand$/m);
    expect(r.stdout).toMatch(/^ {2}g_review {2}wave 3 {2}upstream: g_impl will run$/m);
    expect(r.stdout).toMatch(/^ {2}g_test {2}wave 1 {2}only its content \(output edited by hand on the branch; kept as accepted\)$/m);
    expect(r.stdout).toContain("No workflow or prompts entry differs from main.");

    const { plan, diff, json } = await planAndDiff(dir);
    expect(diff).toEqual(plan);
    expect(json.totals).toEqual({ pairs: 3, run: 2, skip: 1, accepted: 1, added: 0, removed: 0 });
    expect(json.pairs[0]).toMatchObject({ id: "g_test", action: "skip", sinceBase: { changed: true, changes: [], accepted: "edited" } });

    const md = (await cli(["diff", WF, "--base", "main", "--format", "markdown"], dir)).stdout;
    expect(md).toContain("**2 pairs will re-run after merging**, 1 changed and already accepted, 0 unchanged.");
    expect(md).toContain("| `g_test` | 1 | only its content | output edited by hand on the branch; kept as accepted |");
    expect(md).toContain("**`g_test`'s output, edited by hand** — `g_impl` + 1 downstream · waves 2–3");
  });
});
