/**
 * The shell stand-in the action's tests give examples/tdd-stack (test/action/tddStack.ts) answers
 * exactly what the example's model.mjs answers, so those tests run the example's artifacts.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { EXAMPLE, MODEL_SH } from "./tddStack.js";

const PROMPT = "# Role\nYou are a careful code reviewer.\n\n# Task\n\n  Review the implementation against the tests.  \n\n# Context\nA Python Stack class.\n";

function answers(pair: string, prompt: string) {
  const dir = mkdtempSync(path.join(tmpdir(), "pairflow-stand-in-"));
  const file = path.join(dir, "prompt.md");
  writeFileSync(file, prompt);
  const env = { ...process.env, PAIRFLOW_PAIR: pair, PAIRFLOW_PROMPT_FILE: file };
  const run = (command: string, args: string[]) => {
    const r = spawnSync(command, args, { cwd: EXAMPLE, env, input: prompt, encoding: "utf8" });
    return { status: r.status, stdout: r.stdout };
  };
  return { mjs: run(process.execPath, ["model.mjs"]), sh: run("sh", ["-c", MODEL_SH]) };
}

describe("the shell stand-in of examples/tdd-stack's model", () => {
  it.each(["g_test", "g_impl", "g_review"])("answers %s as model.mjs does, quoting the prompt's task", (pair) => {
    const { mjs, sh } = answers(pair, PROMPT);
    expect(mjs.status).toBe(0);
    expect(mjs.stdout).toContain("Review the implementation against the tests.");
    expect(sh).toEqual(mjs);
  });

  it("fails a pair it has no answer for, as model.mjs does", () => {
    const { mjs, sh } = answers("g_other", PROMPT);
    expect(mjs.status).toBe(1);
    expect(sh).toEqual(mjs);
  });
});
