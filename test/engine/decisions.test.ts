/**
 * What a run does against what the plan said and what the docs promise, in-process, with a
 * generator that records every call it receives: the bytes a dependent is given and the hash its
 * reference records, a kept hand edit whose upstream fails, early cutoff and the request index,
 * and `pairflow prompt` against the generator's own prompt.
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { pairPrompt } from "../../src/app/prompt.js";
import { readLock } from "../../src/lockfile/lockfile.js";
import type { GenerateRequest, Generator } from "../../src/model/ports.js";
import { componentsOf } from "../../src/model/records.js";
import type { RunReport } from "../../src/model/run.js";
import { sha256Hex } from "../../src/refs/hash.js";
import { tempRepo, UNCONFINED } from "../helpers/fixtures.js";
import { planOf, runOf } from "../helpers/state.js";

/** A generator that answers from `answer` and keeps every request it received. */
function recorder(answer: (r: GenerateRequest) => string = (r) => `content of ${r.pairId}\n`): { calls: GenerateRequest[]; generator: Generator } {
  const calls: GenerateRequest[] = [];
  return {
    calls,
    generator: async (r) => {
      calls.push(r);
      return { content: answer(r) };
    },
  };
}

const statuses = (report: RunReport) => Object.fromEntries(report.pairs.map((p) => [p.id, p.status]));
const outcome = (report: RunReport, id: string) => report.pairs.find((p) => p.id === id)!;
const listFiles = (dir: string): string[] => readdirSync(dir, { recursive: true, encoding: "utf8" }).map((f) => path.join(dir, f));

function edit(file: string, from: string, to: string): void {
  const text = readFileSync(file, "utf8");
  if (!text.includes(from)) throw new Error(`${file} lacks ${from}`);
  writeFileSync(file, text.replace(from, to));
}

describe("pairflow prompt", () => {
  it("prints the Revision section a carry_edits pair receives, byte for byte", async () => {
    const dir = tempRepo({
      "workflow.yml": "name: carry\ngenerator: rec\naction_pairs:\n  a: {output: a.md, carry_edits: true}\n",
      "prompts.yml": "a: {task: Write a.}\n",
    });
    const rec = recorder();
    await runOf(dir, { generators: { rec: rec.generator } });
    writeFileSync(path.join(dir, "a.md"), "content of a, as a person wrote it\n");
    edit(path.join(dir, "prompts.yml"), "Write a.", "Write a briefly.");
    const shown = await pairPrompt(dir, { cwd: dir, pair: "a" });
    expect(shown.prompt).toContain("# Revision");
    const report = await runOf(dir, { generators: { rec: rec.generator } });
    expect(statuses(report)).toEqual({ a: "executed" });
    expect(rec.calls).toHaveLength(2);
    expect(shown.prompt).toBe(rec.calls[1]!.prompt);
  });
});

/** A workflow whose command generator logs each call to calls.log. */
const LOGGING = `import { appendFileSync, readFileSync } from "node:fs";
appendFileSync("calls.log", process.env.PAIRFLOW_PAIR + "\\n");
const extra = process.env.READ ? readFileSync(process.env.READ, "utf8") : "";
process.stdout.write("content of " + process.env.PAIRFLOW_PAIR + extra + "\\n");
`;
const logged = (dir: string): string[] => {
  try {
    return readFileSync(path.join(dir, "calls.log"), "utf8").trim().split("\n").filter(Boolean);
  } catch {
    return [];
  }
};
const STRACE = spawnSync("strace", ["-V"]).status === 0;

describe("the request index", () => {
  it("keeps what --force bought: a guard change after it makes no call", async () => {
    const dir = tempRepo({ "workflow.yml": "name: forced\ngenerator: rec\naction_pairs:\n  a: {output: a.md}\n" });
    const rec = recorder();
    expect(statuses(await runOf(dir, { generators: { rec: rec.generator }, selection: { force: true } }))).toEqual({ a: "executed" });
    edit(path.join(dir, "workflow.yml"), "{output: a.md}", '{output: a.md, guard: regex, guard_config: {pattern: "content"}}');
    const report = await runOf(dir, { generators: { rec: rec.generator } });
    expect(statuses(report)).toEqual({ a: "executed" });
    expect(rec.calls).toHaveLength(1);
    expect(report.pairs[0]!.note).toContain("no model call");
  });

  it.runIf(STRACE)("answers a traced pair's request with the files it was seen to read, the first time they were recorded", async () => {
    const dir = tempRepo({
      "workflow.yml": "name: traced\ngenerator: command\ngenerator_config: {run: node gen.mjs}\naction_pairs:\n  a: {output: a.md}\n",
      "gen.mjs": LOGGING,
      "data.txt": "data\n",
    });
    const env = { ...process.env, ...UNCONFINED, READ: "data.txt" };
    expect(statuses(await runOf(dir, { env, traceReads: true }))).toEqual({ a: "executed" });
    expect(readLock(path.join(dir, "workflow.lock.json"))!.pairs.a!.observed).toEqual(["data.txt"]);
    edit(path.join(dir, "workflow.yml"), "{output: a.md}", '{output: a.md, guard: regex, guard_config: {pattern: "content"}}');
    const report = await runOf(dir, { env });
    expect(statuses(report)).toEqual({ a: "executed" });
    expect(logged(dir)).toEqual(["a"]);
    expect(report.pairs[0]!.note).toContain("no model call");
  });
});

describe("what a dependent receives", () => {
  it("is the accepted content its reference records, though the output file has CRLF line endings", async () => {
    const dir = tempRepo({
      "workflow.yml": "name: crlf\ngenerator: rec\naction_pairs:\n  a: {output: a.md}\n  b: {requires: [a], output: b.md}\n",
      "prompts.yml": "b: {task: Summarise.}\n",
    });
    const rec = recorder((r) => (r.pairId === "a" ? "line one\nline two\n" : "summary\n"));
    await runOf(dir, { generators: { rec: rec.generator } });
    // A checkout on Windows: the same text, CRLF line endings.
    writeFileSync(path.join(dir, "a.md"), "line one\r\nline two\r\n");
    edit(path.join(dir, "prompts.yml"), "Summarise.", "Summarise it.");
    const plan = (await planOf(dir)).plan;
    expect(plan.pairs.map((p) => [p.id, p.action])).toEqual([
      ["a", "skip"],
      ["b", "run"],
    ]);
    const shown = await pairPrompt(dir, { cwd: dir, pair: "b" });
    const report = await runOf(dir, { generators: { rec: rec.generator } });
    expect(statuses(report)).toEqual({ a: "reused", b: "executed" });
    const given = rec.calls.at(-1)!;
    expect(given.dependencies).toEqual([{ id: "a", content: "line one\nline two\n" }]);
    expect(given.prompt).not.toContain("\r");
    expect(shown.prompt).toBe(given.prompt);
    const lock = readLock(path.join(dir, "workflow.lock.json"))!;
    expect(lock.pairs.a!.contentHash).toBe(sha256Hex("line one\nline two\n"));
    expect(Object.values(componentsOf(lock.pairs.b!))).toContain(lock.pairs.a!.contentHash.slice(0, 16));
  });
});

describe("a person's edit kept", () => {
  it("is reused as the plan said when what it depends on fails, and its lock entry stays", async () => {
    const dir = tempRepo({
      "workflow.yml": "name: kept\ngenerator: rec\naction_pairs:\n  up: {}\n  a: {requires: [up], output: a.md}\n  b: {requires: [a], output: b.md}\n",
      "prompts.yml": "up: {task: Start.}\n",
    });
    let failing = false;
    const generator: Generator = async (r) => {
      if (failing && r.pairId === "up") throw new Error("the provider is down");
      return { content: `content of ${r.pairId}\n` };
    };
    await runOf(dir, { generators: { rec: generator } });
    const lockFile = path.join(dir, "workflow.lock.json");
    writeFileSync(path.join(dir, "a.md"), "a, as a person wrote it\n");
    await runOf(dir, { generators: { rec: generator } });
    const entry = readLock(lockFile)!.pairs.a!;
    expect(entry.source).toBe("human");
    edit(path.join(dir, "prompts.yml"), "Start.", "Start again.");
    failing = true;
    const plan = (await planOf(dir)).plan;
    expect(Object.fromEntries(plan.pairs.map((p) => [p.id, p.action]))).toEqual({ up: "run", a: "skip", b: "run" });
    const report = await runOf(dir, { generators: { rec: generator } });
    expect(statuses(report)).toEqual({ up: "failed", a: "reused", b: "blocked" });
    expect(readFileSync(path.join(dir, "a.md"), "utf8")).toBe("a, as a person wrote it\n");
    expect(readLock(lockFile)!.pairs.a).toEqual(entry);
  });
});

describe("a dependency re-run under a new reference with the same content", () => {
  const WORKFLOW =
    "name: cutoff\ngenerator: rec\nrmax: 1\naction_pairs:\n  a: {}\n" +
    '  b: {requires: [a], output: b.md, guard: regex, guard_config: {pattern: "^good"}}\n  c: {requires: [a], output: c.md}\n';
  const answers = (r: GenerateRequest) => (r.pairId === "b" ? (r.attempt === 1 ? "draft\n" : "good\n") : `content of ${r.pairId}\n`);

  it("answers a dependent from the request index with no call, replaying the rejection its retry followed", async () => {
    const dir = tempRepo({ "workflow.yml": WORKFLOW, "prompts.yml": "a: {task: Start.}\n" });
    const rec = recorder(answers);
    await runOf(dir, { generators: { rec: rec.generator } });
    expect(rec.calls.map((c) => `${c.pairId}.${c.attempt}`).sort()).toEqual(["a.1", "b.1", "b.2", "c.1"]);
    edit(path.join(dir, "prompts.yml"), "Start.", "Start now.");
    rec.calls.length = 0;

    const plan = (await planOf(dir)).plan;
    // c was accepted at its first attempt: its request comes back if a gives the same content.
    // b at its second: the plan promises nothing it cannot check (an index written before
    // rejections kept their feedback cannot replay them).
    expect(plan.byId.get("c")!.reuse).toEqual({ kind: "unless", deps: ["a"] });
    expect(plan.byId.get("b")!.reuse).toBeUndefined();

    const report = await runOf(dir, { generators: { rec: rec.generator } });
    expect(statuses(report)).toEqual({ a: "executed", b: "executed", c: "executed" });
    // Their references are new (a's is), their requests are not: only a calls.
    expect(rec.calls.map((c) => `${c.pairId}.${c.attempt}`)).toEqual(["a.1"]);
    expect(outcome(report, "c").note).toMatch(/^request reused: no model call/);
    expect(outcome(report, "b").note).toMatch(/^request reused: no model call/);
    expect(outcome(report, "b").attempts.map((a) => [a.attempt, a.accepted, a.reused?.kind])).toEqual([
      [1, false, "request"],
      [2, true, "request"],
    ]);
  });

  it("says which attempts called the model when the rejection cannot be replayed", async () => {
    const dir = tempRepo({ "workflow.yml": WORKFLOW, "prompts.yml": "a: {task: Start.}\n" });
    const rec = recorder(answers);
    await runOf(dir, { generators: { rec: rec.generator } });
    // An index written before rejections kept their feedback.
    for (const file of listFiles(path.join(dir, ".pairflow", "store"))) {
      if (!file.endsWith(".json") || !readFileSync(file, "utf8").includes('"feedback"')) continue;
      const index = JSON.parse(readFileSync(file, "utf8")) as { entries: { feedback?: unknown }[] };
      for (const e of index.entries) delete e.feedback;
      writeFileSync(file, JSON.stringify(index) + "\n");
    }
    edit(path.join(dir, "prompts.yml"), "Start.", "Start now.");
    rec.calls.length = 0;
    const report = await runOf(dir, { generators: { rec: rec.generator } });
    expect(rec.calls.map((c) => `${c.pairId}.${c.attempt}`).sort()).toEqual(["a.1", "b.1"]);
    expect(outcome(report, "b").note).not.toContain("no model call");
    expect(outcome(report, "b").note).toContain("1 attempt before it called the model");
  });

  it("calls the model for a fresh pair, and the plan promises no saving for it", async () => {
    const dir = tempRepo({
      "workflow.yml": WORKFLOW.replace("c: {requires: [a], output: c.md}", "c: {requires: [a], output: c.md, fresh: true}"),
      "prompts.yml": "a: {task: Start.}\n",
    });
    const rec = recorder(answers);
    await runOf(dir, { generators: { rec: rec.generator } });
    edit(path.join(dir, "prompts.yml"), "Start.", "Start now.");
    rec.calls.length = 0;
    expect((await planOf(dir)).plan.byId.get("c")!.reuse).toBeUndefined();
    const report = await runOf(dir, { generators: { rec: rec.generator } });
    expect(rec.calls.map((c) => c.pairId)).toContain("c");
    expect(outcome(report, "c").note ?? "").not.toContain("no model call");
  });
});
