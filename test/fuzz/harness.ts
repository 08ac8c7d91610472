/**
 * What the fuzz tests share: repositories to mutate (the real example with the lock file a run
 * leaves, and the reference framework's workflows), a fresh copy of one for each case, and what a
 * person must never see whatever the input.
 *
 * Reproducible: PAIRFLOW_FUZZ_SEED picks the sequence (a failure prints its seed and the shrunk
 * mutation); PAIRFLOW_FUZZ_RUNS scales how many cases run.
 */
import { spawnSync } from "node:child_process";
import { linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { expect } from "vitest";
import { cli, type CliResult } from "../pr/repo.js";
import { copySources, FIXTURES, REPO } from "../helpers/fixtures.js";
import { applyMutation, ops } from "./mutations.js";

export const SEED = Number(process.env.PAIRFLOW_FUZZ_SEED ?? 13);
/** Cases per file, as a multiple of the default. */
export const SCALE = Number(process.env.PAIRFLOW_FUZZ_RUNS ?? 1);
/** Written in a file outside every test repository: no output may ever show it. */
export const SECRET = "FUZZ_SECRET_7731";

export interface Base {
  name: string;
  files: Record<string, Buffer>;
  workflow: string;
  prompts: string;
  lock: string;
}

export interface World {
  root: string;
  bases: Base[];
  /** The example's lock file, as a run wrote it. */
  lockText: string;
  /** The example repository, and the state directory of its run. */
  example: string;
  state: string;
  /** A fresh repository for one case: the base's files, a pipe ("fifo"), and a link leading out of it ("link-out"). */
  caseRepo(base: Base): string;
  done(): void;
}

export async function makeWorld(): Promise<World> {
  const root = mkdtempSync(path.join(tmpdir(), "pairflow-fuzz-"));
  writeFileSync(path.join(root, "outside.yml"), `${SECRET}: {task: leaked}\n`);
  // One pipe, linked into each case (a hard link to a pipe is a pipe).
  const pipe = path.join(root, "pipe");
  const hasPipe = spawnSync("mkfifo", [pipe]).status === 0;
  const example = path.join(root, "example");
  const state = path.join(root, "example-state");
  mkdirSync(path.join(example, ".git"), { recursive: true });
  copySources(path.join(REPO, "examples/tdd-stack"), example);
  const ran = await cli(["run", "--yes", "--state-dir", state], example);
  expect(ran.status, ran.stderr).toBe(0);
  const bases: Base[] = [
    { name: "examples/tdd-stack", files: readTree(example), workflow: "workflow.yml", prompts: "prompts.yml", lock: "workflow.lock.json" },
  ];
  for (const folder of ["atomicguard", "atomicguard-more"]) {
    for (const name of readdirSync(path.join(FIXTURES, "compat", folder)).filter((d) => d !== "LICENSE")) {
      const dir = path.join(FIXTURES, "compat", folder, name);
      bases.push({
        name: `compat/${folder}/${name}`,
        files: { "workflow.json": readFileSync(path.join(dir, "workflow.json")), "prompts.json": readFileSync(path.join(dir, "prompts.json")) },
        workflow: "workflow.json",
        prompts: "prompts.json",
        lock: "workflow.lock.json",
      });
    }
  }
  let count = 0;
  return {
    root,
    bases,
    lockText: readFileSync(path.join(example, "workflow.lock.json"), "utf8"),
    example,
    state,
    caseRepo(base) {
      const dir = path.join(root, `case-${count++}`);
      mkdirSync(path.join(dir, ".git"), { recursive: true });
      for (const [name, data] of Object.entries(base.files)) {
        mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
        writeFileSync(path.join(dir, name), data);
      }
      if (hasPipe) linkSync(pipe, path.join(dir, "fifo"));
      symlinkSync(root, path.join(dir, "link-out"));
      return dir;
    },
    done: () => rmSync(root, { recursive: true, force: true }),
  };
}

function readTree(dir: string, prefix = ""): Record<string, Buffer> {
  const out: Record<string, Buffer> = {};
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const rel = path.join(prefix, entry.name);
    if (entry.isDirectory()) Object.assign(out, readTree(path.join(dir, entry.name), rel));
    else out[rel] = readFileSync(path.join(dir, entry.name));
  }
  return out;
}

/** Exit 0 or 2, no stack trace, nothing from outside the repository, and every error at its file:line:column. */
export function expectClean(result: CliResult, what: string): void {
  const output = result.stdout + result.stderr;
  expect([0, 2], `${what}: exit status\n${output}`).toContain(result.status);
  expect(output, what).not.toMatch(/^\s+at /m);
  expect(output, what).not.toMatch(/TypeError|RangeError|ReferenceError|Maximum call stack/);
  expect(output, what).not.toContain(SECRET);
  for (const line of result.stderr.split("\n").filter((l) => l.startsWith("error "))) expect(line, what).toMatch(/^error \S.*:\d+:\d+: /);
}

/**
 * validate and plan, in-process, on numRuns mutations of one kind of file (of the example, or of
 * a reference workflow), each in a fresh repository.
 */
export async function fuzzFiles(
  world: World,
  target: "workflow" | "prompts" | "lock",
  numRuns: number,
  from: "example" | "reference" | "all" = "all",
): Promise<void> {
  // The lock file only the example has.
  const bases = target === "lock" || from === "example" ? world.bases.slice(0, 1) : from === "reference" ? world.bases.slice(1) : world.bases;
  let heap = 0;
  await fc.assert(
    fc.asyncProperty(fc.nat(), ops, async (which, mutations) => {
      const base = bases[which % bases.length]!;
      const dir = world.caseRepo(base);
      const file = base[target];
      const original = base.files[file]?.toString("utf8") ?? "";
      writeFileSync(path.join(dir, file), applyMutation(original, mutations, file.endsWith(".json")));
      expectClean(await cli(["validate"], dir), `validate ${base.name} (${file} mutated)`);
      expectClean(await cli(["plan", "--state-dir", path.join(dir, ".state")], dir), `plan ${base.name} (${file} mutated)`);
      heap = Math.max(heap, process.memoryUsage().heapUsed);
      rmSync(dir, { recursive: true, force: true });
    }),
    { seed: SEED, numRuns: Math.round(numRuns * SCALE), endOnFailure: true },
  );
  // Bounded memory: no mutation made the process hold more than this at once.
  expect(heap).toBeLessThan(1024 ** 3);
}
