/**
 * A full disk stops a run cleanly: a clear error, every file whole (the old content or the new,
 * never a part), no temporary file left; once there is space again, the next run completes with
 * the right content and takes nothing it finds for a hand edit. Run on a small tmpfs, which needs
 * root and Linux; skipped, saying why, where it cannot be mounted.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statfsSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readLock } from "../../src/lockfile/lockfile.js";
import { sha256Hex } from "../../src/refs/hash.js";
import { tempRepo, writeFiles } from "../helpers/fixtures.js";
import { runOf } from "../helpers/state.js";
import { CLI } from "../helpers/package.js";
import { scaled } from "../helpers/time.js";

/** Prints its pair's id, a digest of its prompt (so dependents differ with their dependencies) and SIZE bytes. */
const GENERATOR = `printf '%s ' "$PAIRFLOW_PAIR"; sha256sum | cut -c1-16; head -c "$SIZE" /dev/zero | tr '\\0' x; echo
`;

function files(size: number): Record<string, string> {
  return {
    "gen.sh": GENERATOR,
    "workflow.yml": `name: full
generator: command
generator_config: {run: sh gen.sh, env: {SIZE: "${size}"}}
action_pairs:
  a: {output: out/a.txt}
  b: {output: out/b.txt, requires: [a]}
  c: {output: out/c.txt, requires: [b]}
  d: {output: out/d.txt}
  e: {output: out/e.txt, requires: [a, d]}
`,
  };
}

const OUTPUTS = ["a", "b", "c", "d", "e"].map((id) => `out/${id}.txt`);

let mount: string | undefined;
let why = "";

beforeAll(() => {
  const dir = mkdtempSync(path.join(tmpdir(), "pairflow-full-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=2m", "tmpfs", dir], { stdio: "pipe" });
    mount = dir;
  } catch (err) {
    why = `cannot mount a small tmpfs here (needs root on Linux): ${String((err as Error).message).split("\n")[0]}`;
  }
});

afterAll(() => {
  if (mount) execFileSync("umount", [mount]);
});

/** Every file under dir, relative. */
function walk(dir: string, under = ""): string[] {
  return readdirSync(path.join(dir, under), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(dir, path.join(under, e.name)) : [path.join(under, e.name)],
  );
}

function read(dir: string, file: string): Buffer | undefined {
  try {
    return readFileSync(path.join(dir, file));
  } catch {
    return undefined;
  }
}

describe("a full disk", () => {
  it("stops the run cleanly, and the next run with space completes it", { timeout: scaled(120_000) }, async (ctx) => {
    if (!mount) ctx.skip(why);
    const root = mount!;
    // What the outputs are after a run with the new content and nothing in the way.
    const after = 75_000;
    const reference = tempRepo(files(after));
    expect((await runOf(reference, { cwd: reference })).status).toBe("success");
    let stopped = 0;
    await fc.assert(
      // The new content needs some 750 kB: the disk fills up at a different write each time.
      fc.asyncProperty(fc.record({ before: fc.integer({ min: 20_000, max: 40_000 }), free: fc.nat({ max: 500_000 }) }), async ({ before, free }) => {
        for (const name of readdirSync(root)) rmSync(path.join(root, name), { recursive: true, force: true });
        const dir = path.join(root, "repo");
        mkdirSync(path.join(dir, ".git"), { recursive: true });
        writeFiles(dir, files(before));
        expect((await runOf(dir, { cwd: dir })).status).toBe("success");
        const old = new Map(OUTPUTS.map((f) => [f, read(dir, f)!]));

        // New content for every pair, on a disk with `free` bytes left.
        writeFiles(dir, files(after));
        const { bavail, bsize } = statfsSync(root);
        writeFileSync(path.join(root, "filler"), Buffer.alloc(Math.max(0, bavail * bsize - free)));
        const full = spawnSync(process.execPath, [CLI, "run"], { cwd: dir, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
        if (full.status !== 0) {
          stopped++;
          expect(full.status, full.stderr).toBe(1);
          expect(full.stderr).toMatch(/^error could not write.*: no space left on the device \(ENOSPC\)\. The run stopped/m);
          expect(full.stderr).not.toMatch(/^\s+at /m); // no stack trace
        }
        // Every output is whole: as it was, or as it is meant to be; the lock file reads.
        for (const f of OUTPUTS) {
          const now = read(dir, f);
          expect([old.get(f)!.toString(), read(reference, f)!.toString()], f).toContain(now?.toString());
        }
        expect(() => readLock(path.join(dir, "workflow.lock.json"))).not.toThrow();
        expect(walk(root).filter((f) => f.endsWith(".tmp"))).toEqual([]);

        // Space again: the next run completes, with the right content and no hand edit.
        rmSync(path.join(root, "filler"));
        const report = await runOf(dir, { cwd: dir });
        expect(report.status).toBe("success");
        for (const f of OUTPUTS) expect(read(dir, f)!.equals(read(reference, f)!), f).toBe(true);
        const lock = readLock(path.join(dir, "workflow.lock.json"))!;
        for (const [id, entry] of Object.entries(lock.pairs)) {
          expect(entry.source, id).toBe("generated");
          expect(entry.contentHash, id).toBe(sha256Hex(read(dir, `out/${id}.txt`)!));
        }
        expect(walk(root).filter((f) => f.endsWith(".tmp"))).toEqual([]);
      }),
      { numRuns: 5, seed: 1313 },
    );
    expect(stopped).toBeGreaterThan(0);
  });
});

describe("a damaged store object", () => {
  it("is not trusted, and is replaced whole when its content is produced again", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 1000 }), fc.constantFrom("a", "b", "d"), async (keep, id) => {
        const dir = tempRepo(files(1000));
        expect((await runOf(dir, { cwd: dir })).status).toBe("success");
        const hash = readLock(path.join(dir, "workflow.lock.json"))!.pairs[id]!.contentHash;
        const object = walk(path.join(dir, ".pairflow/store")).find((f) => path.basename(f) === hash);
        expect(object).toBeDefined();
        const file = path.join(dir, ".pairflow/store", object!);
        // Cut short, as a disk that filled up under a careless writer would leave it.
        writeFileSync(file, readFileSync(file).subarray(0, keep));
        rmSync(path.join(dir, `out/${id}.txt`));

        const report = await runOf(dir, { cwd: dir });
        expect(report.status).toBe("success");
        // Not restored from the damaged copy: generated again, and stored whole.
        expect(report.pairs.find((p) => p.id === id)!.status).toBe("executed");
        expect(sha256Hex(readFileSync(file))).toBe(hash);
        expect(sha256Hex(readFileSync(path.join(dir, `out/${id}.txt`)))).toBe(hash);
        expect(report.pairs.filter((p) => p.status === "executed").map((p) => p.id)).toEqual([id]);
      }),
      { numRuns: 4 },
    );
  });
});
