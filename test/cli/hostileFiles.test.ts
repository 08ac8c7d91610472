/**
 * Files a pull request controls, through the installed CLI: committed symbolic links that would
 * make a glob walk without end (two links to the repository, one to /, a loop) leave `plan` and
 * `run` as they are, and a file whose name is not UTF-8 is an input like any other, whether an
 * `inputs` glob matches it or a traced command reads it: an edit of it re-runs its pair.
 */
import { spawnSync } from "node:child_process";
import { appendFileSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { Reason } from "../../src/model/plan.js";
import { tempRepo } from "../helpers/fixtures.js";
import { scaled } from "../helpers/time.js";
import { CLI } from "./built.js";

interface PlanJson {
  pairs: { id: string; action: string; reasons: Reason[] }[];
}
interface Lock {
  pairs: Record<string, { components: Record<string, string>; observed?: string[] }>;
}

/**
 * `pairflow ARGS` in dir. Before globs stopped following links, `plan` here walked for hours: the
 * child is given up on after a while, so that such a walk fails the test instead of hanging it.
 */
function pairflow(dir: string, args: string[]): { status: number | null; stdout: string; stderr: string } {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1" };
  delete env.PAIRFLOW_STATE_DIR;
  delete env.CI;
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd: dir, env, encoding: "utf8", timeout: scaled(60_000), killSignal: "SIGKILL" });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The pairs `plan` would run, with their reasons. */
function planned(dir: string): Record<string, Reason[]> {
  const r = pairflow(dir, ["plan", "--json"]);
  expect(r.status, r.stderr).toBe(0);
  const plan = JSON.parse(r.stdout) as PlanJson;
  return Object.fromEntries(plan.pairs.filter((p) => p.action === "run").map((p) => [p.id, p.reasons]));
}

function run(dir: string, ...flags: string[]): void {
  const r = pairflow(dir, ["run", ...flags]);
  expect(r.status, r.stderr).toBe(0);
}

function lock(dir: string): Lock {
  return JSON.parse(readFileSync(path.join(dir, "workflow.lock.json"), "utf8")) as Lock;
}

/** `docs/caf\xE9.md`: a Latin-1 name, not UTF-8, as pairflow spells it (src/model/fileName.ts). */
const LATIN1 = "caf\udce9";

function writeLatin1(dir: string, rel: string, text: string): Buffer {
  mkdirSync(path.join(dir, rel), { recursive: true });
  const file = Buffer.concat([Buffer.from(path.join(dir, rel, "caf")), Buffer.of(0xe9), Buffer.from(".md")]);
  writeFileSync(file, text);
  return file;
}

const STRACE = spawnSync("strace", ["-V"]).status === 0;

describe("files a pull request controls, through the CLI", () => {
  it(
    "links to the repository, to / and in a loop are not walked; a link to a file re-runs its pair when the file changes",
    { timeout: scaled(120_000) },
    () => {
      const dir = tempRepo({
        "workflow.yml": 'name: links\nrmax: 0\ngenerator: command\naction_pairs:\n  a:\n    inputs: ["**/*.md"]\n    generator_config: {run: echo a}\n',
        "docs/a.md": "a\n",
        "shared/b.md": "b\n",
      });
      symlinkSync(".", path.join(dir, "l1"));
      symlinkSync(".", path.join(dir, "l2"));
      symlinkSync("/", path.join(dir, "root"));
      symlinkSync("loop2.md", path.join(dir, "loop1.md"));
      symlinkSync("loop1.md", path.join(dir, "loop2.md"));
      symlinkSync("../shared/b.md", path.join(dir, "docs/b.md"));
      expect(Object.keys(planned(dir))).toEqual(["a"]);
      run(dir);
      expect(Object.keys(lock(dir).pairs.a!.components).filter((c) => c.startsWith("input:"))).toEqual([
        "input:docs/a.md",
        "input:docs/b.md",
        "input:shared/b.md",
      ]);
      expect(planned(dir)).toEqual({});
      appendFileSync(path.join(dir, "shared/b.md"), "more\n");
      expect(planned(dir).a?.map((r) => r.detail)).toEqual(expect.arrayContaining(["docs/b.md changed", "shared/b.md changed"]));
    },
  );

  it("a file whose name is not UTF-8 under inputs is hashed by its exact name, and an edit of it re-runs its pair", { timeout: scaled(120_000) }, () => {
    const dir = tempRepo({
      "workflow.yml":
        'name: names\nrmax: 0\ngenerator: command\naction_pairs:\n  a:\n    inputs: ["docs/*.md"]\n    generator_config: {run: echo a}\n  b:\n    generator_config: {run: echo b}\n',
      "docs/a.md": "a\n",
    });
    const file = writeLatin1(dir, "docs", "caf\xe9\n");
    expect(Object.keys(planned(dir)).sort()).toEqual(["a", "b"]);
    run(dir);
    expect(Object.keys(lock(dir).pairs.a!.components)).toContain(`input:docs/${LATIN1}.md`);
    expect(planned(dir)).toEqual({});
    appendFileSync(file, "more\n");
    expect(Object.keys(planned(dir))).toEqual(["a"]);
    run(dir);
    expect(planned(dir)).toEqual({});
  });

  it.runIf(STRACE)(
    "a file whose name is not UTF-8 a traced command reads is recorded exactly, and an edit of it re-runs its pair",
    { timeout: scaled(120_000) },
    () => {
      const dir = tempRepo({
        "workflow.yml": 'name: traced\nrmax: 0\ngenerator: command\naction_pairs:\n  reader:\n    generator_config: {run: "cat data/*"}\n',
      });
      const file = writeLatin1(dir, "data", "x\n");
      run(dir, "--trace-reads", "--sandbox", "off");
      expect(lock(dir).pairs.reader!.observed).toEqual([`data/${LATIN1}.md`]);
      expect(planned(dir)).toEqual({});
      appendFileSync(file, "more\n");
      expect(planned(dir).reader?.map((r) => r.kind)).toEqual(["inputs"]);
    },
  );
});
