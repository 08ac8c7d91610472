/**
 * Learning from run records (runs/<runId>/result.json under the state directory) as well as the
 * lock file, read defensively: a damaged or foreign record is skipped, never an error.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tempRepo } from "../helpers/fixtures.js";
import { cli } from "./helpers.js";

function project(): string {
  return tempRepo({
    "workflow.yml":
      "name: learn\nmodel: gpt-4.1\ngenerator: openai\ngenerator_config: {base_url: 'http://127.0.0.1:9/v1', max_tokens: 4000}\nrmax: 1\naction_pairs:\n  a: {}\n  b: {}\n",
  });
}

function record(dir: string, runId: string, content: unknown): void {
  const runDir = path.join(dir, ".pairflow", "runs", runId);
  mkdirSync(runDir, { recursive: true });
  writeFileSync(path.join(runDir, "result.json"), typeof content === "string" ? content : JSON.stringify(content));
}

const attempt = (output: number | null) => ({
  attempt: 1,
  accepted: true,
  feedback: "",
  tokens: output === null ? null : { input: 10, output },
  durationMs: 1,
});

async function estimates(dir: string): Promise<Record<string, { outputTokens: number; outputBasis: string; attempts: number; attemptsBasis: string }>> {
  const json = JSON.parse((await cli(["plan", "--json"], { cwd: dir })).stdout);
  return Object.fromEntries(json.pairs.map((p: { id: string; estimate: unknown }) => [p.id, p.estimate]));
}

describe("history from run records", () => {
  it("expects the median output per attempt and the median attempts of past accepted runs", async () => {
    const dir = project();
    record(dir, "20261101T000000000Z-aaaa", { pairs: [{ id: "a", status: "executed", configRef: "x", attempts: [attempt(100), attempt(300)] }] });
    record(dir, "20261102T000000000Z-bbbb", { pairs: [{ id: "a", status: "executed", configRef: "y", attempts: [attempt(200)] }] });
    record(dir, "20261103T000000000Z-cccc", { pairs: [{ id: "a", status: "executed", configRef: "z", attempts: [attempt(250), attempt(null)] }] });
    // A failed pair's attempts were not accepted: they do not count.
    record(dir, "20261104T000000000Z-dddd", { pairs: [{ id: "a", status: "failed", attempts: [attempt(9000), attempt(9000)] }] });
    const e = await estimates(dir);
    expect(e.a).toMatchObject({ outputTokens: 225, outputBasis: "history", attempts: 2, attemptsBasis: "history" });
    // No history for b: its max_tokens, and one attempt.
    expect(e.b).toMatchObject({ outputTokens: 4000, outputBasis: "max_tokens", attempts: 1, attemptsBasis: "default" });
  });

  it("never expects more attempts than the pair may make", async () => {
    const dir = project();
    record(dir, "20261101T000000000Z-aaaa", { pairs: [{ id: "a", status: "executed", attempts: [attempt(1), attempt(1), attempt(1), attempt(1)] }] });
    expect((await estimates(dir)).a).toMatchObject({ attempts: 2 }); // rmax 1: at most 2 attempts
  });

  it("skips records that are damaged or of another shape", async () => {
    const dir = project();
    record(dir, "20261101T000000000Z-aaaa", "{ half a record");
    record(dir, "20261102T000000000Z-bbbb", { pairs: "not a list" });
    record(dir, "20261103T000000000Z-cccc", { pairs: [null, { id: 7 }, { id: "a", status: "executed", attempts: [{ tokens: { output: "many" } }] }] });
    mkdirSync(path.join(dir, ".pairflow", "runs", "20261104T000000000Z-dddd"), { recursive: true }); // no result.json yet
    const r = await cli(["plan", "--json"], { cwd: dir });
    expect(r.status).toBe(0);
    // The one readable run says a took one attempt; it reported no output tokens.
    expect(JSON.parse(r.stdout).pairs[0].estimate).toMatchObject({ outputBasis: "max_tokens", attempts: 1, attemptsBasis: "history" });
  });
});
