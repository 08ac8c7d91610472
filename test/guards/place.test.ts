/**
 * A guard judges the candidate where it will live: a test runner run on the output's path finds it
 * there (on a first run too, and with relative imports), tools may write their caches beside the
 * code, and afterwards the repository is as it was but for what the run accepted. Confined, the
 * guard works in a writable layer over the repository that goes with it; unconfined, the candidate
 * is written at its place meanwhile and what was there put back, also after pairflow was killed.
 */
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { probeSandbox } from "../../src/processes/sandbox.js";
import { REPO, tempRepo } from "../helpers/fixtures.js";
import { CLI } from "../helpers/package.js";
import { scaled } from "../helpers/time.js";
import { until } from "../helpers/wait.js";

const SANDBOX = probeSandbox(process.env).available;
const MODES = SANDBOX ? (["auto", "off"] as const) : (["off"] as const);

const ADD = "export const add = (a, b) => a + b;\n";
const test = (expected: number) =>
  `import { test } from "node:test";\nimport assert from "node:assert/strict";\nimport { add } from "../src/add.mjs";\ntest("adds", () => assert.equal(add(1, 2), ${expected}));\n`;

/** A repository as a person has it (committed), whose pair writes tests/add.test.mjs and whose guard runs them where they live. */
function repository(expected: number, guard = "mkdir -p .cache && echo x > .cache/runs && node --test tests/add.test.mjs"): string {
  const dir = tempRepo({
    "src/add.mjs": ADD,
    "candidate.mjs": test(expected),
    ".gitignore": ".pairflow/\n",
    "workflow.yml": `name: t\nrmax: 0\naction_pairs:\n  tests:\n    output: tests/add.test.mjs\n    generator: command\n    generator_config: {run: cat candidate.mjs}\n    guard: command\n    guard_config: {run: ${JSON.stringify(guard)}}\n`,
  });
  git(dir, ["init", "-q"]);
  git(dir, ["add", "-A"]);
  git(dir, ["-c", "user.email=p@example.com", "-c", "user.name=p", "commit", "-qm", "start"]);
  return dir;
}

function git(dir: string, args: string[]): string {
  return execFileSync("git", args, { cwd: dir, encoding: "utf8" });
}

function run(dir: string, sandbox: string) {
  const r = spawnSync(process.execPath, [CLI, "run", "--json", "--sandbox", sandbox], { cwd: dir, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
  return JSON.parse(r.stdout) as { sandbox?: { confined: boolean }; pairs: { status: string; note: string | null; attempts: { feedback: string }[] }[] };
}

/** What git sees changed: the output and the lock file may be, nothing else. */
function changed(dir: string): string[] {
  return git(dir, ["status", "--porcelain", "--untracked-files=all"])
    .split("\n")
    .filter(Boolean)
    .map((line) => line.slice(3));
}

describe.each(MODES)("a guard running the tests a model wrote, at their place (sandbox %s)", (sandbox) => {
  it("accepts tests that pass where they will live, on a first run with nothing there yet", { timeout: scaled(60_000) }, () => {
    const dir = repository(3);
    const report = run(dir, sandbox);
    expect(report.sandbox?.confined ?? false).toBe(sandbox === "auto");
    expect(report.pairs[0]!.status).toBe("executed");
    expect(readFileSync(path.join(dir, "tests/add.test.mjs"), "utf8")).toBe(test(3));
    // Confined, the cache it wrote went with its layer; unconfined it stays, as any tool's would.
    expect(changed(dir).sort()).toEqual(
      sandbox === "auto" ? ["tests/add.test.mjs", "workflow.lock.json"] : [".cache/runs", "tests/add.test.mjs", "workflow.lock.json"],
    );
  });

  it("rejects tests that fail, naming the assertion, and leaves the person's file as it was", { timeout: scaled(60_000) }, () => {
    const dir = repository(4);
    // A person's own tests at the output's path, committed.
    mkdirSync(path.join(dir, "tests"), { recursive: true });
    writeFileSync(path.join(dir, "tests/add.test.mjs"), "// the person's tests\n");
    git(dir, ["add", "-A"]);
    git(dir, ["-c", "user.email=p@example.com", "-c", "user.name=p", "commit", "-qm", "mine"]);
    const report = run(dir, sandbox);
    expect(report.pairs[0]!.status).toBe("failed");
    expect(report.pairs[0]!.attempts[0]!.feedback).toMatch(/3 !== 4|expected: 4/);
    expect(readFileSync(path.join(dir, "tests/add.test.mjs"), "utf8")).toBe("// the person's tests\n");
    expect(changed(dir).filter((f) => f !== ".cache/runs" && f !== "workflow.lock.json")).toEqual([]);
  });

  it("judges with the type checker a repository already has, exactly as on the committed file", { timeout: scaled(60_000) }, () => {
    const dir = tempRepo({
      "candidate.ts": 'export const n: number = "not a number";\n',
      "workflow.yml": `name: t\nrmax: 0\naction_pairs:\n  typed:\n    output: src/n.ts\n    generator: command\n    generator_config: {run: cat candidate.ts}\n    guard: command\n    guard_config: {run: "node node_modules/typescript/bin/tsc --noEmit --strict src/n.ts", reject_exit_codes: [1, 2]}\n`,
    });
    // The repository's own TypeScript, installed in it as a project's is (a link out of it could lead
    // where the sandbox shows nothing, such as /tmp).
    cpSync(path.join(REPO, "node_modules/typescript"), path.join(dir, "node_modules/typescript"), { recursive: true });
    const report = run(dir, sandbox);
    expect(report.pairs[0]!.status).toBe("failed");
    expect(report.pairs[0]!.note).toMatch(/^rejected after 1 attempt/);
    expect(report.pairs[0]!.attempts[0]!.feedback).toMatch(/src\/n\.ts\(1,14\): error TS2322/);
    expect(existsSync(path.join(dir, "src/n.ts"))).toBe(false);
  });
});

describe("a candidate written at its place unconfined", () => {
  it("is put back by the next run when pairflow was killed while the guard ran", { timeout: scaled(60_000) }, async () => {
    const dir = repository(4, "touch judging; sleep 30");
    mkdirSync(path.join(dir, "tests"), { recursive: true });
    writeFileSync(path.join(dir, "tests/add.test.mjs"), "// the person's tests\n");
    const child = spawn(process.execPath, [CLI, "run", "--sandbox", "off"], { cwd: dir, stdio: "ignore" });
    await until(() => existsSync(path.join(dir, "judging")), "the guard to start");
    expect(readFileSync(path.join(dir, "tests/add.test.mjs"), "utf8")).toBe(test(4));
    child.kill("SIGKILL");
    await new Promise((resolve) => child.on("exit", resolve));
    // The next run puts the person's file back before anything runs; its guard now rejects at once.
    writeFileSync(path.join(dir, "workflow.yml"), readFileSync(path.join(dir, "workflow.yml"), "utf8").replace("touch judging; sleep 30", "exit 1"));
    const report = run(dir, "off");
    expect(report.pairs[0]!.status).toBe("failed");
    expect(readFileSync(path.join(dir, "tests/add.test.mjs"), "utf8")).toBe("// the person's tests\n");
  });
});

describe.each(MODES)("the unit-tests example (sandbox %s)", (sandbox) => {
  it(
    "has a model's tests judged by node --test where they live: a failed assertion is fed back, the second attempt passes, a second run reuses it",
    { timeout: scaled(60_000) },
    () => {
      const dir = tempRepo();
      cpSync(path.join(REPO, "examples/unit-tests"), dir, { recursive: true });
      const first = run(dir, sandbox);
      expect(first.pairs[0]!.status).toBe("executed");
      expect(first.pairs[0]!.attempts).toHaveLength(2);
      expect(first.pairs[0]!.attempts[0]!.feedback.split("\n").slice(0, 5).join("\n")).toMatch(/drops accents and punctuation/);
      expect(readFileSync(path.join(dir, "out/slug.test.mjs"), "utf8")).toContain('"creme-brulee-s-il-vous-plait"');
      expect(run(dir, sandbox).pairs[0]!.status).toBe("reused");
    },
  );
});

const PYTEST = spawnSync("python3", ["-c", "import pytest"], { stdio: "ignore" }).status === 0;

describe.runIf(PYTEST).each(MODES)("a pytest guard at the test's place (sandbox %s)", (sandbox) => {
  it("accepts passing tests and rejects failing ones by their assertion; confined, no cache is left", { timeout: scaled(60_000) }, () => {
    const pair = (expected: number) =>
      `name: t\nrmax: 0\naction_pairs:\n  tests:\n    output: tests/test_calc.py\n    generator: command\n    generator_config: {run: "printf 'from calc import add\\\\n\\\\ndef test_adds():\\\\n    assert add(1, 2) == ${expected}\\\\n'"}\n    guard: command\n    guard_config: {run: "python3 -m pytest -q tests/test_calc.py", env: {PYTHONPATH: src}}\n`;
    for (const [expected, status] of [
      [3, "executed"],
      [4, "failed"],
    ] as const) {
      const dir = tempRepo({ "src/calc.py": "def add(a, b):\n    return a + b\n", "workflow.yml": pair(expected) });
      const report = run(dir, sandbox);
      expect(report.pairs[0]!.status, JSON.stringify(report.pairs[0])).toBe(status);
      if (status === "failed") expect(report.pairs[0]!.attempts[0]!.feedback.split("\n").slice(0, 5).join("\n")).toMatch(/assert 3 == 4|test_adds/);
      if (sandbox === "auto") {
        expect(existsSync(path.join(dir, ".pytest_cache"))).toBe(false);
        expect(existsSync(path.join(dir, "tests/__pycache__"))).toBe(false);
      }
    }
  });
});
