/**
 * A pull request in a repository that commits no lock file (the outputs and the lock file are left
 * to the cache, as the example run workflow does): the base branch's runs keep the cache warm, and
 * the plan on the pull request counts it. The plan, the comment and the run that follows name the
 * same pairs. Each job starts from a fresh clone, as a runner does.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tddStackSource } from "./tddStack.js";
import { FakeGitHub } from "../pr/fakeGitHub.js";
import { commitAll, git, gitRepo } from "../pr/repo.js";
import { FakeCacheService } from "./fakeCacheService.js";
import { rerunCauses } from "./comment.js";
import { runAction, type ActionResult } from "./runner.js";
import { scaled } from "../helpers/time.js";

let gh: FakeGitHub;
let cache: FakeCacheService;
beforeEach(async () => {
  gh = new FakeGitHub();
  await gh.start();
  cache = await new FakeCacheService().start();
});
afterEach(async () => {
  await gh.stop();
  await cache.close();
});

type Planned = { id: string; action: string; reasons: { kind: string; detail: string }[] };
const planOf = (result: ActionResult) => (JSON.parse(result.outputs.plan!) as { pairs: Planned[] }).pairs;
const ids = (result: ActionResult, output: string) => JSON.parse(result.outputs[output]!) as string[];

/** A runner's checkout: a fresh clone at the repository's current branch. */
function checkout(dir: string): string {
  const into = path.join(mkdtempSync(path.join(tmpdir(), "pairflow-checkout-")), "repo");
  git(path.dirname(into), "clone", "-q", dir, into);
  return into;
}

/** What a runner sets for a pull request's jobs: entries it saves are the pull request's; it reads the base's too. */
const PULL_REQUEST_ENV = {
  GITHUB_REF: "refs/pull/7/merge",
  GITHUB_BASE_REF: "main",
  GITHUB_HEAD_REF: "feature",
  GITHUB_REPOSITORY: "o/r",
  GITHUB_RUN_ID: "42",
};

describe("a pull request with no lock file committed and the base's cache warm", () => {
  for (const [pair, from, to, expected] of [
    ["g_impl", "task: Implement the Stack class.", "task: Implement the Stack class with a list.", ["g_impl", "g_review"]],
    ["g_review", "Review the implementation against", "Review the implementation versus", ["g_review"]],
  ] as const) {
    it(`plans, comments and runs exactly the same pairs when ${pair}'s prompt changes`, { timeout: scaled(90_000) }, async () => {
      const dir = gitRepo({ ".gitignore": ".pairflow/\nout/\n*.lock.json\n" }, { source: tddStackSource(), into: "flows/tdd" });
      const baseSha = git(dir, "rev-parse", "HEAD").trim();
      // main's run keeps the cache warm.
      const onMain = await runAction({ workspace: checkout(dir), cache, with: { path: "flows/tdd" } });
      expect(ids(onMain, "executed")).toEqual(["g_test", "g_impl", "g_review"]);

      git(dir, "checkout", "-q", "-b", "feature");
      const prompts = path.join(dir, "flows/tdd/prompts.yml");
      writeFileSync(prompts, readFileSync(prompts, "utf8").replace(from, to));
      commitAll(dir, `change ${pair}'s prompt`);

      const event = { name: "pull_request", payload: { pull_request: { number: 7, base: { sha: baseSha } } } };
      const env = { ...PULL_REQUEST_ENV, GITHUB_API_URL: gh.url };
      const plan = await runAction({ workspace: checkout(dir), cache, event, env, with: { mode: "plan", path: "flows/tdd" } });
      expect(plan.code).toBe(0);
      expect(plan.warnings).toEqual([]);
      const planned = planOf(plan);
      const toRun = planned.filter((p) => p.action === "run").map((p) => p.id);
      expect(toRun).toEqual(expected);
      // The changed pair is named for its change, as against a lock file, not as never accepted.
      expect(planned.find((p) => p.id === pair)!.reasons).toMatchObject([
        { kind: "prompt", detail: expect.stringMatching(/^prompt\.task changed$/) as string },
      ]);

      expect(gh.comments).toHaveLength(1);
      const body = gh.comments[0]!.body;
      // The changed pair is the cause; the comment counts what re-runs with it.
      expect(rerunCauses(body)).toEqual({ named: [pair], count: toRun.length });
      expect(body).toContain(`**${toRun.length} pair${toRun.length === 1 ? "" : "s"} will re-run after merging**`);
      // What the base's cache holds unchanged is not presented as changed.
      expect(body).not.toContain("already accepted");
      expect(body).not.toContain("never accepted");

      const run = await runAction({ workspace: checkout(dir), cache, event, env, with: { path: "flows/tdd" } });
      expect(run.code).toBe(0);
      expect(ids(run, "executed")).toEqual(toRun);
      expect(ids(run, "reused")).toEqual(["g_test", "g_impl", "g_review"].filter((id) => !toRun.includes(id)));
    });
  }
});
