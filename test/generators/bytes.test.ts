/**
 * Artifacts are bytes end to end: what a command prints is hashed, stored and written as printed,
 * and is refused only where it must become text, in a dependent's prompt.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { tempRepo } from "../helpers/fixtures.js";
import { runOf } from "../helpers/state.js";
import { sha256Hex } from "../../src/refs/hash.js";

/** A generator that prints the bytes of the file named in its argument. */
const CAT = `import { readFileSync, writeFileSync } from "node:fs";\nprocess.stdout.write(readFileSync(process.argv[2]));\n`;

function workflow(extra = ""): string {
  return `name: bytes
generator: command
action_pairs:
  blob:
    generator_config: {run: node cat.mjs blob.src}
    output: out/blob.bin
${extra}`;
}

describe("artifacts are bytes", () => {
  it("any bytes a command prints reach the output file and the lock file's hash unchanged, and the next run reuses them", async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ minLength: 0, maxLength: 300 }), async (bytes) => {
        const data = Buffer.from(bytes);
        const dir = tempRepo({ "cat.mjs": CAT, "workflow.yml": workflow() });
        writeBytes(dir, "blob.src", data);
        const first = await runOf(dir, { cwd: dir });
        expect(first.status).toBe("success");
        const written = readFileSync(path.join(dir, "out/blob.bin"));
        expect(Buffer.compare(written, data)).toBe(0);
        expect(first.pairs[0]!.contentHash).toBe(sha256Hex(data));
        // Not mistaken for a hand edit, whatever the bytes (CR LF, NUL, invalid UTF-8, a BOM).
        const second = await runOf(dir, { cwd: dir });
        expect(second.pairs.map((p) => [p.status, p.note])).toEqual([["reused", null]]);
      }),
      { numRuns: 12 },
    );
  });

  it("a dependent cannot take non-UTF-8 content into its prompt: it fails naming both pairs; valid UTF-8 passes", async () => {
    const dir = tempRepo({
      "cat.mjs": CAT,
      "workflow.yml": workflow("  reader:\n    requires: [blob]\n    generator_config: {run: cat}\n    output: out/reader.txt\n"),
    });
    writeBytes(dir, "blob.src", Buffer.from([0x68, 0x69, 0xff, 0x0a]));
    const report = await runOf(dir, { cwd: dir });
    expect(report.pairs.map((p) => p.status)).toEqual(["executed", "failed"]);
    expect(report.pairs[1]!.note).toBe("the accepted content of blob is not UTF-8 text, so it cannot become part of reader's prompt");
    expect(Buffer.compare(readFileSync(path.join(dir, "out/blob.bin")), Buffer.from([0x68, 0x69, 0xff, 0x0a]))).toBe(0);

    writeBytes(dir, "blob.src", Buffer.from("héllo ✓\n"));
    const fixed = await runOf(dir, { cwd: dir });
    expect(fixed.pairs.map((p) => p.status)).toEqual(["executed", "executed"]);
    expect(readFileSync(path.join(dir, "out/reader.txt"), "utf8")).toContain("héllo ✓");
  });

  it("an artifact over max_output_bytes fails the pair with a message naming it and the limit", async () => {
    const dir = tempRepo({
      "cat.mjs": CAT,
      "workflow.yml": workflow().replace("name: bytes\n", "name: bytes\nmax_output_bytes: 64\n"),
    });
    writeBytes(dir, "blob.src", Buffer.alloc(65, 0x61));
    const report = await runOf(dir, { cwd: dir });
    expect(report.pairs[0]!.status).toBe("failed");
    expect(report.pairs[0]!.note).toContain("blob printed more than the output limit of 64 bytes (max_output_bytes)");
    writeBytes(dir, "blob.src", Buffer.alloc(64, 0x61));
    expect((await runOf(dir, { cwd: dir })).pairs[0]!.status).toBe("executed");
  });
});

function writeBytes(dir: string, name: string, data: Buffer): void {
  writeFileSync(path.join(dir, name), data);
}
