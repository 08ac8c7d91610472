/**
 * Learning from the run records real runs write (runs/<runId>/trace.jsonl under the state
 * directory) as well as the lock file. The `openai` generator talks to a chat-completions endpoint
 * on 127.0.0.1 that answers from a queue and reports usage, so each test decides how many attempts
 * a run makes and how many output tokens each produces. A damaged record is skipped, never an error.
 */
import { appendFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { PairEstimate } from "../../src/estimate/estimate.js";
import { RUN_RECORDS_READ } from "../../src/records/pastRuns.js";
import { tempRepo } from "../helpers/fixtures.js";
import { planOf, runOf } from "../helpers/state.js";
import { loopbackProvider, type Provider } from "./helpers.js";

let provider: Provider;
/** What the provider answers next, one per request. */
let answers: string[];

beforeEach(async () => {
  answers = [];
  provider = await loopbackProvider(() => answers.shift() ?? "OK\n");
});
afterEach(() => provider.close());

/** One pair whose guard rejects any answer not starting with OK; up to 4 attempts. */
function project(): string {
  return tempRepo({
    "workflow.yml": `name: learn
model: gpt-4.1
generator: openai
generator_config: {base_url: "${provider.baseUrl}", retries: 0, max_tokens: 4000}
rmax: 3
action_pairs:
  a: {guard: regex, guard_config: {pattern: "^OK"}}
`,
    "prompts.yml": "a: {task: Write version 1.}\n",
  });
}

function edit(dir: string, from: string, to: string): void {
  const file = path.join(dir, "prompts.yml");
  const text = readFileSync(file, "utf8");
  if (!text.includes(from)) throw new Error(`${file} lacks ${from}`);
  writeFileSync(file, text.replace(from, to));
}

/** Runs the workflow with these answers, and returns the output tokens the provider reported for each. */
async function run(dir: string, ...replies: string[]): Promise<number[]> {
  const before = provider.requests.length;
  answers = replies;
  const report = await runOf(dir, { env: {} });
  expect(report.status).toBe("success");
  return provider.requests.slice(before).map((r) => r.usage.completion_tokens);
}

async function estimateOfA(dir: string): Promise<PairEstimate> {
  const { estimate } = await planOf(dir, { env: {} });
  return estimate.pairs.find((p) => p.id === "a")!;
}

const median = (values: number[]) => {
  const s = [...values].sort((x, y) => x - y);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

const runIds = (dir: string) => readdirSync(path.join(dir, ".pairflow/runs")).sort();

/** Two real runs: three attempts (two rejected) under one configuration, then one under the next. */
async function twoRuns(dir: string): Promise<number[]> {
  const first = await run(dir, "no " + "word ".repeat(40), "no " + "word ".repeat(90), "OK " + "word ".repeat(150));
  edit(dir, "version 1", "version 2");
  const second = await run(dir, "OK " + "word ".repeat(400));
  expect([first.length, second.length]).toEqual([3, 1]);
  edit(dir, "version 2", "version 3");
  return [...first, ...second];
}

describe("the estimate learns from what runs record", () => {
  it("expects the median attempts and output tokens of the past accepted runs the records hold", async () => {
    const dir = project();
    expect(await estimateOfA(dir)).toMatchObject({ outputTokens: 4000, outputBasis: "max_tokens", attempts: 1, attemptsBasis: "default" });
    const outputs = await twoRuns(dir);

    const a = await estimateOfA(dir);
    // The lock file alone knows only the last run: one attempt, its output.
    expect(a).toMatchObject({ outputBasis: "history", attemptsBasis: "history" });
    expect(a.attempts).toBe(2); // median of 3 and 1
    expect(a.outputTokens).toBe(Math.round(median(outputs))); // over all four attempts
    expect(new Set(outputs).size).toBe(4);
  });

  it("reads around damaged records, and skips those it cannot read at all", async () => {
    const dir = project();
    const outputs = await twoRuns(dir);
    const [first, second] = runIds(dir);
    const runs = path.join(dir, ".pairflow/runs");
    appendFileSync(path.join(runs, first!, "trace.jsonl"), '{"t":"2026-01-01T00:00:00Z","event":"attempt_e');
    writeFileSync(path.join(runs, second!, "result.json"), readFileSync(path.join(runs, second!, "result.json"), "utf8").slice(0, 30));
    writeFileSync(path.join(runs, second!, "plan.json"), "");
    mkdirSync(path.join(runs, "29990101T000000000Z-0001")); // a run that has written nothing yet
    mkdirSync(path.join(runs, "29990101T000000000Z-0002"));
    writeFileSync(path.join(runs, "29990101T000000000Z-0002", "trace.jsonl"), "not a trace\n[1, 2]\nnull\n");
    mkdirSync(path.join(runs, "29990101T000000000Z-0003"));
    writeFileSync(
      path.join(runs, "29990101T000000000Z-0003", "trace.jsonl"),
      '{"event":"pair_end","id":"a","status":"executed"}\n{"event":"attempt_end","id":"a","attempt":"one","tokens":{"output":"many"}}\n',
    );

    const a = await estimateOfA(dir);
    expect(a).toMatchObject({ outputBasis: "history", attemptsBasis: "history" });
    expect(a.attempts).toBe(2);
    expect(a.outputTokens).toBe(Math.round(median(outputs)));
  });

  it(`reads only the newest ${RUN_RECORDS_READ} runs`, async () => {
    const dir = project();
    const outputs = await twoRuns(dir);
    // The newest runs execute nothing (the configuration they see is unchanged), so they teach
    // nothing; the two that did fall out of what is read, and the lock file is what is left.
    edit(dir, "version 3", "version 2");
    for (let i = 0; i < RUN_RECORDS_READ - 2; i++) expect(await run(dir)).toEqual([]);
    edit(dir, "version 2", "version 3");
    expect(await estimateOfA(dir)).toMatchObject({ attempts: 2, outputTokens: Math.round(median(outputs)) });

    edit(dir, "version 3", "version 2");
    expect(await run(dir)).toEqual([]);
    edit(dir, "version 2", "version 3");
    expect(runIds(dir)).toHaveLength(RUN_RECORDS_READ + 1);
    expect(await estimateOfA(dir)).toMatchObject({ outputBasis: "history", attempts: 1, outputTokens: outputs[3] });
  });

  it("never expects more attempts than the pair may make", async () => {
    const dir = project();
    writeFileSync(path.join(dir, "workflow.yml"), readFileSync(path.join(dir, "workflow.yml"), "utf8").replace("rmax: 3", "rmax: 2"));
    await run(dir, "no", "no", "OK");
    writeFileSync(path.join(dir, "workflow.yml"), readFileSync(path.join(dir, "workflow.yml"), "utf8").replace("rmax: 2", "rmax: 1"));
    edit(dir, "version 1", "version 2");
    expect(await estimateOfA(dir)).toMatchObject({ attempts: 2, attemptsBasis: "history" }); // rmax 1: at most 2 attempts
  });
});
