/**
 * Never paying twice, through what users run: the installed CLI and the bundled action, against a
 * model service on loopback that counts every call. A dependency whose prompt changed but whose
 * answer did not, a guard that changed and still accepts, and a prompt changed and changed back
 * buy no call, on the same machine and on fresh runners that have only the cache's snapshot.
 */
import { execFile } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { tempRepo } from "../helpers/fixtures.js";
import { CLI } from "../helpers/package.js";
import { startModelService, type ModelService } from "../helpers/providers.js";
import { FakeCacheService } from "../action/fakeCacheService.js";
import { runAction } from "../action/runner.js";
import { scaled } from "../helpers/time.js";

const KEY = "sk-loopback-requests";

/** The model's answer: the task of the prompt and what it got from upstream, never its role. */
function answer(prompt: string): string {
  const task = /# Task\n\n([^\n]*)/.exec(prompt)?.[1] ?? "";
  const upstream = [...prompt.matchAll(/answer to: ([^\n`]*)/g)].map((m) => m[1]).join(" + ");
  return `answer to: ${task}${upstream ? ` (after ${upstream})` : ""}\n`;
}

function files(service: ModelService): Record<string, string> {
  return {
    "workflow.yml": [
      "name: chain",
      "model: gpt-4o-mini",
      "generator: openai",
      `generator_config: {base_url: "${service.openaiUrl}", api_key_env: LOOPBACK_KEY, retries: 0}`,
      "action_pairs:",
      "  a: {output: out/a.txt, guard: contains, guard_config: {text: answer}}",
      "  b: {requires: [a], output: out/b.txt, guard: contains, guard_config: {text: [answer, after]}}",
      "  c: {requires: [b], output: out/c.txt, guard: contains, guard_config: {text: answer}}",
      "",
    ].join("\n"),
    "prompts.yml": "a: {task: Write a.}\nb: {task: Write b.}\nc: {task: Write c.}\n",
  };
}

function edit(dir: string, file: string, from: string, to: string): void {
  const text = readFileSync(path.join(dir, file), "utf8");
  if (!text.includes(from)) throw new Error(`${file} lacks ${from}`);
  writeFileSync(path.join(dir, file), text.replace(from, to));
}

const run = (dir: string) =>
  new Promise<{ code: number; report: { pairs: { id: string; status: string; note: string | null }[]; spend: { bought: { calls: number } } } }>(
    (resolve, reject) =>
      execFile(process.execPath, [CLI, "run", "--json"], { cwd: dir, env: { ...process.env, LOOPBACK_KEY: KEY, NO_COLOR: "1" } }, (err, stdout, stderr) => {
        try {
          resolve({ code: typeof err?.code === "number" ? err.code : 0, report: JSON.parse(stdout) });
        } catch {
          reject(new Error(`not JSON: ${stdout}\n${stderr}`));
        }
      }),
  );

let service: ModelService;
beforeAll(async () => {
  service = await startModelService({ key: KEY, answer: (r) => answer(r.prompt) });
});
afterAll(() => service.close());

describe("the installed CLI", () => {
  it("makes no call for what it asked before: a dependency that gave the same answer, a looser guard, a revert", { timeout: scaled(60_000) }, async () => {
    const dir = tempRepo(files(service));
    const calls = () => service.requests.length;
    expect((await run(dir)).report.spend.bought.calls).toBe(3);
    const start = calls();

    // a's role changes its prompt, not its answer: a is asked again, b and c are not.
    edit(dir, "prompts.yml", "a: {task: Write a.}", "a: {task: Write a., role: A careful writer}");
    const role = await run(dir);
    expect(calls() - start).toBe(1);
    expect(role.report.pairs.map((p) => [p.id, p.status])).toEqual([
      ["a", "executed"],
      ["b", "executed"],
      ["c", "executed"],
    ]);
    expect(role.report.pairs[1]!.note).toMatch(/^request reused: no model call/);

    // b's guard asks for less: its answer is judged again, accepted, and nobody is asked.
    edit(dir, "workflow.yml", "text: [answer, after]", "text: [answer]");
    const guard = await run(dir);
    expect(calls() - start).toBe(1);
    expect(guard.report.pairs[1]!.note).toMatch(/^request reused; guard re-judged: no model call/);
    expect(guard.report.spend.bought.calls).toBe(0);

    // c's task changed costs one call; changed back, none.
    edit(dir, "prompts.yml", "c: {task: Write c.}", "c: {task: Write c briefly.}");
    await run(dir);
    expect(calls() - start).toBe(2);
    edit(dir, "prompts.yml", "c: {task: Write c briefly.}", "c: {task: Write c.}");
    const revert = await run(dir);
    expect(revert.report.spend.bought.calls).toBe(0);
    expect(calls() - start).toBe(2);
    expect(readFileSync(path.join(dir, "out/c.txt"), "utf8")).toBe("answer to: Write c. (after Write b. (after Write a.))\n");
  });
});

describe("the bundled action on fresh runners", () => {
  let cache: FakeCacheService;
  beforeEach(async () => {
    cache = await new FakeCacheService().start();
  });
  afterEach(() => cache.close());

  it("answers from the cache's snapshot what earlier jobs asked: the same answer upstream, and a revert", { timeout: scaled(120_000) }, async () => {
    const repo = tempRepo(files(service));
    /** A runner's fresh checkout of the repository as it is now. */
    const checkout = () => {
      const dir = path.join(mkdtempSync(path.join(tmpdir(), "pairflow-job-")), "repo");
      cpSync(repo, dir, { recursive: true });
      return dir;
    };
    const job = async () => {
      const before = service.requests.length;
      const result = await runAction({ workspace: checkout(), cache, env: { LOOPBACK_KEY: KEY } });
      expect(result.code, result.stdout).toBe(0);
      return { result, calls: service.requests.length - before };
    };

    expect((await job()).calls).toBe(3);
    edit(repo, "prompts.yml", "a: {task: Write a.}", "a: {task: Write a., role: A careful writer}");
    const role = await job();
    expect(role.calls).toBe(1);
    expect(role.result.summary).toMatch(/Bought 1 call .*2 requests answered before, with no call/);
    edit(repo, "prompts.yml", "c: {task: Write c.}", "c: {task: Write c briefly.}");
    expect((await job()).calls).toBe(1);
    edit(repo, "prompts.yml", "c: {task: Write c briefly.}", "c: {task: Write c.}");
    const revert = await job();
    expect(revert.calls).toBe(0);
    expect(JSON.parse(revert.result.outputs.executed!)).toEqual(["c"]);
  });
});
