/**
 * A long output goes out no faster than it is read: `plan --json` into a pipe read slowly waits
 * whenever the pipe's buffer is full instead of queueing the whole text in memory, and a reader
 * that goes away ends the wait.
 */
import { EventEmitter } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { generateWorkflow } from "../../bench/generate.js";
import { runCli } from "../../src/cli/program.js";

const dir = mkdtempSync(path.join(os.tmpdir(), "pairflow-output-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
generateWorkflow(dir, 300);

/** A stream whose buffer is full after every write: drained a moment later, or failing instead. */
class SlowReader extends EventEmitter {
  written: string[] = [];
  pending = 0;
  mostPending = 0;
  constructor(private readonly failAfter = Infinity) {
    super();
  }
  write(s: string): boolean {
    this.written.push(s);
    this.mostPending = Math.max(this.mostPending, ++this.pending);
    setImmediate(() => {
      this.pending--;
      this.emit(this.written.length >= this.failAfter ? "error" : "drain");
    });
    return false;
  }
}

const plan = (stdout: SlowReader) => runCli(["plan", "--json", dir], { stdout, stderr: { write: () => true }, cwd: dir, env: { NO_COLOR: "1" } });

describe("plan --json into a slow reader", () => {
  it("writes the next piece only once the last is taken, and writes all of it", async () => {
    const out = new SlowReader();
    expect(await plan(out)).toBe(0);
    expect(out.written.length).toBeGreaterThan(3);
    expect(out.mostPending).toBe(1);
    expect((JSON.parse(out.written.join("")) as { pairs: unknown[] }).pairs).toHaveLength(300);
  });

  it("stops waiting when the reader fails", async () => {
    const out = new SlowReader(2);
    expect(await plan(out)).toBe(0);
    expect(out.written.length).toBeGreaterThan(2);
  });
});
