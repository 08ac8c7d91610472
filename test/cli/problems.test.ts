/**
 * Many problems in one file: as text, each file's first 50 and a line saying how many more there
 * are (what to do is the same for each); under --json, every one of them.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../../src/cli/program.js";
import { tempRepo } from "../helpers/fixtures.js";

async function cli(dir: string, ...args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const status = await runCli(args, {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    cwd: dir,
    env: { NO_COLOR: "1" },
  });
  return { status, stdout, stderr };
}

const WORKFLOW = "name: many\ngenerator: command\ngenerator_config: {run: echo hi}\naction_pairs:\n  a: {output: out/a.txt}\n";

/** A lock file of n entries, each without its content hash. */
function damagedLock(n: number): string {
  const entry = JSON.stringify({
    configRef: "a".repeat(64),
    source: "generated",
    model: null,
    components: {},
    attempts: 1,
    tokens: { input: 0, output: 0 },
    durationMs: 1,
    acceptedAt: "2026-01-01T00:00:00.000Z",
  });
  const entries = Array.from({ length: n }, (_, i) => `    "p${i}": ${entry}\n`);
  return `{\n  "version": 1,\n  "workflow": "many",\n  "pairs": {\n${entries.join("    ,\n")}  }\n}\n`;
}

const lines = (text: string) => text.split("\n").filter((l) => l !== "");

describe("a file with thousands of problems", () => {
  const n = 3000;
  const dir = tempRepo({ "workflow.yml": WORKFLOW, "workflow.lock.json": damagedLock(n) });

  it("plan shows the lock file's first 50, at their entries, and says how many more", async () => {
    const { status, stderr } = await cli(dir, "plan");
    expect(status).toBe(2);
    const out = lines(stderr);
    expect(out).toHaveLength(52);
    out.slice(0, 50).forEach((line, i) => {
      // Entry i is on line 5 + 2i: each entry a line, a comma line between.
      expect(line).toBe(
        `error workflow.lock.json:${5 + 2 * i}:${10 + String(i).length}: pairs.p${i}: the entry of pair "p${i}" has no "contentHash"; ` +
          "restore it from version control, or delete it to plan every pair as new",
      );
    });
    expect(out[50]).toBe(`... and ${n - 50} more problems in workflow.lock.json (--json lists them all)`);
    expect(out[51]).toBe(`${n} problems in 1 file`);
  });

  it("plan --json lists every one of them", async () => {
    const { status, stdout, stderr } = await cli(dir, "plan", "--json");
    expect(status).toBe(2);
    expect(stdout).toBe("");
    const out = lines(stderr);
    expect(out).toHaveLength(n + 1);
    expect(out.filter((l) => l.startsWith("error workflow.lock.json:")).map((l) => /pairs\.(p\d+):/.exec(l)![1])).toEqual(
      Array.from({ length: n }, (_, i) => `p${i}`),
    );
    expect(out[n]).toBe(`${n} problems in 1 file`);
  });
});

describe("problems in several files", () => {
  // 60 pairs with an unknown key, and 55 prompts entries for no pair.
  const pairs = Array.from({ length: 60 }, (_, i) => `  p${i}: {output: out/p${i}.txt, colour: red}\n`).join("");
  const prompts = Array.from({ length: 55 }, (_, i) => `nobody${i}: {task: t}\n`).join("");
  const dir = tempRepo({ "workflow.yml": WORKFLOW.replace(/ {2}a: .*\n/, pairs), "prompts.yml": prompts });

  it("validate shows each file's first 50, and how many more each has", async () => {
    const { status, stderr } = await cli(dir, "validate");
    expect(status).toBe(2);
    const out = lines(stderr);
    const of = (file: string) => out.filter((l) => l.startsWith(`error ${file}:`));
    expect(of("workflow.yml")).toHaveLength(50);
    expect(of("prompts.yml")).toHaveLength(50);
    expect(out).toContain("... and 10 more problems in workflow.yml (--json lists them all)");
    expect(out).toContain("... and 5 more problems in prompts.yml (--json lists them all)");
    // Each file's line follows its fiftieth problem.
    expect(out[out.indexOf("... and 5 more problems in prompts.yml (--json lists them all)") - 1]).toMatch(/^error prompts\.yml:50:1: nobody49: /);
    expect(out[out.length - 1]).toBe("115 problems in 2 files");
  });

  it("validate --json lists every one", async () => {
    const { status, stdout } = await cli(dir, "validate", "--json");
    expect(status).toBe(2);
    const { problems } = JSON.parse(stdout) as { problems: { file: string; key: string }[] };
    expect(problems.filter((p) => p.file === "workflow.yml").map((p) => p.key)).toEqual(Array.from({ length: 60 }, (_, i) => `action_pairs.p${i}.colour`));
    expect(problems.filter((p) => p.file === "prompts.yml").map((p) => p.key)).toEqual(Array.from({ length: 55 }, (_, i) => `nobody${i}`));
  });

  it("a file with 50 problems or fewer shows them all, with no line about more", async () => {
    writeFileSync(path.join(dir, "prompts.yml"), prompts.split("\n").slice(0, 50).join("\n") + "\n");
    const { stderr } = await cli(dir, "validate");
    expect(lines(stderr).filter((l) => l.startsWith("error prompts.yml:"))).toHaveLength(50);
    expect(stderr).not.toContain("more problems in prompts.yml");
    expect(stderr).toMatch(/^110 problems in 2 files$/m);
  });
});
