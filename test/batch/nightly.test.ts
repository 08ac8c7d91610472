/**
 * The 200-pair nightly workflow in batch mode through the installed CLI, against loopback services
 * that follow both providers' batch APIs and prompt caches:
 *
 * - uninterrupted, one batch per wave and provider, the same outputs as a synchronous run, and a
 *   reported cost of at most 0.6x the synchronous, uncached run's;
 * - SIGKILLed at chosen moments (as a batch is being created, before its id could be recorded; as
 *   its results are read; as a later wave waits) and at random ones, and resumed each time: never
 *   a request submitted twice, and the outputs of the synchronous run;
 * - `--no-wait`, then later runs that collect what was sent.
 */
import { spawn } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { startBatchService, type BatchService } from "../helpers/batchProviders.js";
import { tempRepo, UNCONFINED } from "../helpers/fixtures.js";
import { CLI } from "../helpers/package.js";
import { scaled } from "../helpers/time.js";
import { answer, files, KEY, outputs, submittedTwice } from "./world.js";

interface Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** `pairflow ARGS` from the installed CLI, asynchronously (the services answer from this process); `kill` SIGKILLs it once it settles. */
function pairflow(dir: string, args: string[], options: { kill?: Promise<unknown>; env?: Record<string, string> } = {}): Promise<Ran> {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: dir,
    env: {
      ...process.env,
      ...UNCONFINED,
      NO_COLOR: "1",
      CI: "",
      LOOPBACK_KEY: KEY,
      PAIRFLOW_BATCH_POLL_MS: "20",
      PAIRFLOW_HTTP_BACKOFF_MS: "1",
      ...options.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  void options.kill?.then(() => child.kill("SIGKILL"));
  return new Promise((resolve) => child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr })));
}

function report(ran: Ran): { status: string; spend: { bought: { calls: number; batched: number; cost: number } }; pairs: { status: string }[] } {
  try {
    return JSON.parse(ran.stdout);
  } catch {
    throw new Error(`not a report (exit ${ran.code ?? ran.signal}):\n${ran.stdout.slice(-2000)}\n${ran.stderr.slice(-2000)}`);
  }
}

const services: BatchService[] = [];
afterEach(async () => {
  for (const s of services.splice(0)) await s.close();
});

async function service(options: Partial<Parameters<typeof startBatchService>[0]> = {}): Promise<BatchService> {
  const s = await startBatchService({ key: KEY, answer, ...options });
  services.push(s);
  return s;
}

/** The same workflow run synchronously, against a service whose prompt cache is off: the outputs, and the cost, to compare with (run once for every test). */
let once: Promise<{ outputs: Record<string, string>; cost: number }> | undefined;
function synchronous(): Promise<{ outputs: Record<string, string>; cost: number }> {
  return (once ??= runSynchronously());
}

async function runSynchronously(): Promise<{ outputs: Record<string, string>; cost: number }> {
  const sync = await service({ caching: false });
  const dir = tempRepo(files(sync));
  const ran = await pairflow(dir, ["run", "--json", "--yes"]);
  expect(ran.code, ran.stderr).toBe(0);
  expect(sync.batches()).toEqual([]);
  return { outputs: outputs(dir), cost: report(ran).spend.bought.cost };
}

describe("the nightly workflow in batches", () => {
  it("sends one batch per wave and provider, ends with the synchronous run's outputs, and costs at most 0.6x of it", { timeout: scaled(120_000) }, async () => {
    const sync = await synchronous();
    const batched = await service({ polls: 2 });
    const dir = tempRepo(files(batched));
    const ran = await pairflow(dir, ["run", "--batch", "--json", "--yes"]);
    expect(ran.code, ran.stderr.slice(-3000)).toBe(0);
    expect(outputs(dir)).toEqual(sync.outputs);
    // Wave 1: the translations; wave 2: the retries of the 11 bad ones and the other 89 summaries; wave 3: the last 11 summaries.
    expect(batched.batches().map((b) => `${b.provider} ${b.requests}`)).toEqual(["anthropic 100", "anthropic 11", "openai 89", "openai 11"]);
    expect(batched.asked.every((a) => a.via !== "sync")).toBe(true);
    expect(submittedTwice(batched)).toEqual([]);
    const spend = report(ran).spend.bought;
    expect(spend).toMatchObject({ calls: 211, batched: 211 });
    const ratio = spend.cost / sync.cost;
    console.log(`nightly: batch + cache $${spend.cost.toFixed(4)} against synchronous, uncached $${sync.cost.toFixed(4)}: ${ratio.toFixed(3)}x`);
    expect(ratio).toBeLessThanOrEqual(0.6);
  });

  it("killed at any moment and resumed, never submits a request twice and ends as a synchronous run does", { timeout: scaled(240_000) }, async () => {
    const sync = await synchronous();
    let kill: (() => void) | undefined;
    const killNow = () => {
      kill?.();
      kill = undefined;
    };
    let creates = 0;
    let resultReads = 0;
    let trigger: "create" | "results" | undefined;
    const batched = await service({
      polls: 3,
      // Killed as the provider creates the batch, before pairflow hears its id.
      onCreate: () => {
        creates++;
        if (trigger === "create") killNow();
        return new Promise((r) => setTimeout(r, 30));
      },
      onCall: (call) => {
        if (!/results$|\/content$/.test(call)) return;
        resultReads++;
        if (trigger === "results") killNow();
      },
    });
    const dir = tempRepo(files(batched));
    const random = lcg(2026);
    const plan: ("create" | "results" | "timer")[] = ["create", "results", "timer", "create", "timer", "results", "timer", "timer"];
    let invocations = 0;
    let last: Ran | undefined;
    for (const how of plan) {
      invocations++;
      trigger = how === "timer" ? undefined : how;
      const killed = new Promise<void>((resolve) => {
        kill = resolve;
        if (how === "timer") setTimeout(killNow, 50 + Math.floor(random() * 600));
      });
      last = await pairflow(dir, invocations === 1 ? ["run", "--batch", "--json", "--yes"] : ["resume", "--batch", "--json"], { kill: killed });
      kill = undefined;
      if (last.code === 0) break;
      expect(last.signal, last.stderr.slice(-2000)).toBe("SIGKILL");
    }
    // Whatever is left, to the end.
    for (let i = 0; last?.code !== 0 && i < 4; i++) last = await pairflow(dir, ["resume", "--batch", "--json"]);
    expect(last?.code, last?.stderr.slice(-3000)).toBe(0);
    expect(report(last!).status).toBe("success");
    expect(invocations).toBeGreaterThan(2);
    expect(creates).toBeGreaterThan(2);
    expect(resultReads).toBeGreaterThan(0);
    expect(submittedTwice(batched)).toEqual([]);
    expect(batched.asked.every((a) => a.via !== "sync")).toBe(true);
    expect(outputs(dir)).toEqual(sync.outputs);
  });

  it("cancels its batch on SIGINT; resumed, it uses what the batch finished and sends only the rest again", { timeout: scaled(120_000) }, async () => {
    const batched = await service({ polls: 1_000_000 });
    const dir = tempRepo(files(batched));
    const child = spawn(process.execPath, [CLI, "run", "--batch", "--grace", "1", "--yes"], {
      cwd: dir,
      env: { ...process.env, ...UNCONFINED, NO_COLOR: "1", CI: "", LOOPBACK_KEY: KEY, PAIRFLOW_BATCH_POLL_MS: "20" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let sent = false;
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      // Twice: cancel what is in flight now, rather than after the grace period.
      if (!sent && /: 100 requests submitted$/m.test(out)) {
        sent = true;
        child.kill("SIGINT");
        setTimeout(() => child.kill("SIGINT"), 50);
      }
    });
    const code = await new Promise<number | null>((resolve) => child.on("close", (c) => resolve(c)));
    expect(code, out.slice(-2000)).toBe(130);
    expect(out).toMatch(/^batch +anthropic \S+: cancelling \(what it finished is collected by the next run\)$/m);
    expect(batched.batches()).toEqual([expect.objectContaining({ provider: "anthropic", requests: 100, state: "cancelling" })]);

    batched.setPolls(0);
    const resumed = await pairflow(dir, ["resume", "--batch", "--json"]);
    expect(resumed.code, resumed.stderr.slice(-2000)).toBe(0);
    // The cancelled batch had done half its requests: only the other half went again, with the
    // retries of the five bad translations among the first half.
    expect(
      batched
        .batches()
        .map((b) => `${b.provider} ${b.requests}`)
        .slice(0, 2),
    ).toEqual(["anthropic 100", "anthropic 55"]);
    const answered = batched.asked.map((a) => `${a.provider} ${a.prompt}`);
    expect(new Set(answered).size).toBe(answered.length);
    expect(outputs(dir)).toEqual((await synchronous()).outputs);
  });

  it("with --no-wait, submits and exits 0 waiting; later runs collect everything", { timeout: scaled(120_000) }, async () => {
    const sync = await synchronous();
    const batched = await service({ polls: 1_000_000 });
    const dir = tempRepo(files(batched));
    const first = await pairflow(dir, ["run", "--batch", "--no-wait", "--json", "--yes"]);
    expect(first.code, first.stderr.slice(-2000)).toBe(0);
    expect(report(first).status).toBe("waiting");
    expect(first.stderr).toMatch(/: 100 requests submitted$/m);
    expect(first.stderr).toMatch(/not waiting for it: pairflow run or pairflow resume collects it$/m);
    expect(batched.batches()).toHaveLength(1);
    expect(report(first).spend.bought.calls).toBe(0);
    batched.setPolls(0);
    let runs = 0;
    let bought = 0;
    let last: Ran;
    do {
      last = await pairflow(dir, ["run", "--batch", "--no-wait", "--json", "--yes"]);
      expect(last.code, last.stderr.slice(-2000)).toBe(0);
      runs++;
      bought += report(last).spend.bought.calls;
    } while (report(last).status === "waiting" && runs < 6);
    expect(report(last).status).toBe("success");
    // Each later run collected the wave sent before it and sent the next: three waves in all.
    expect(runs).toBe(3);
    expect(submittedTwice(batched)).toEqual([]);
    // Each answer is bought once, by the run that collected it: a pair starting its attempts over
    // replays the answers it had, as requests answered before.
    expect(bought).toBe(211);
    expect(outputs(dir)).toEqual(sync.outputs);
  });
});

function lcg(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}
