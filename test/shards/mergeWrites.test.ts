/**
 * The merge's fold writes the outputs it restores with their waits for the disk overlapping: every
 * file ends as the last write to it says, however many are on their way at once, and a write that
 * fails fails the merge once the others are down.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { overlappedWrites } from "../../src/app/shard.js";
import type { Pair } from "../../src/model/workflow.js";
import { OutputFiles } from "../../src/workspace/outputs.js";
import { tempRepo } from "../helpers/fixtures.js";

const pair = (id: string, output: string) => ({ id, output }) as Pair;

describe("the merge's output writes", () => {
  it("leave each file as its last write says, with more files than writes at once", async () => {
    const dir = tempRepo();
    const files = new OutputFiles({ dir, root: dir, path: path.join(dir, "workflow.yml") });
    const { outputs, settle } = overlappedWrites(files, 3);
    for (let i = 0; i < 20; i++) outputs.write(pair(`p${i}`, `out/p${i}.txt`), Buffer.from(`first ${i}\n`));
    // Two pairs of one file (pieces of a page): the later write is what stays.
    for (let i = 0; i < 20; i += 5) outputs.write(pair(`q${i}`, `out/p${i}.txt`), Buffer.from(`second ${i}\n`));
    await settle();
    for (let i = 0; i < 20; i++) expect(readFileSync(path.join(dir, "out", `p${i}.txt`), "utf8")).toBe(i % 5 === 0 ? `second ${i}\n` : `first ${i}\n`);
  });

  it("fail with the first write that failed, after the others are written", async () => {
    const dir = tempRepo({ blocked: "a file where a directory should be\n" });
    const files = new OutputFiles({ dir, root: dir, path: path.join(dir, "workflow.yml") });
    const { outputs, settle } = overlappedWrites(files, 2);
    outputs.write(pair("a", "out/a.txt"), Buffer.from("a\n"));
    outputs.write(pair("b", "blocked/b.txt"), Buffer.from("b\n"));
    outputs.write(pair("c", "out/c.txt"), Buffer.from("c\n"));
    await expect(settle()).rejects.toThrow(/blocked/);
    expect(readFileSync(path.join(dir, "out", "a.txt"), "utf8")).toBe("a\n");
    expect(readFileSync(path.join(dir, "out", "c.txt"), "utf8")).toBe("c\n");
  });
});
