/**
 * A run of many pairs keeps most of its store entries in a pack (src/store/pack.ts). Killed with
 * -9 in the middle, what it accepted is all there for the next run: nothing finished runs again,
 * the outcome is an uninterrupted run's, and outputs deleted afterwards come back from the store.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readLock } from "../src/lockfile/lockfile.js";
import { tempRepo, UNCONFINED } from "./helpers/fixtures.js";
import { CLI } from "./helpers/package.js";
import { scaled } from "./helpers/time.js";
import { release, until } from "./helpers/wait.js";

const PAIRS = 40;
const id = (i: number) => `p${String(i).padStart(2, "0")}`;

// Logs each call; a call HOLD names waits for release.<pair>, so the kill lands while it is in flight.
const SCRIPT = `pair=$PAIRFLOW_PAIR attempt=$PAIRFLOW_ATTEMPT
echo "$pair $attempt" >> calls.log
bytes=$(wc -c)
if [ "\${HOLD-}" = "$pair$attempt" ]; then
  while [ ! -e "release.$pair" ]; do sleep 0.01; done
fi
echo "content of $pair from $bytes prompt bytes"
`;

/** A chain: each pair requires the one before, so a kill at one pair leaves all before it accepted. */
function project(): string {
  const lines = ["name: many", "generator: command", "generator_config: {run: sh gen.sh}", "action_pairs:"];
  for (let i = 0; i < PAIRS; i++) lines.push(`  ${id(i)}: {output: out/${id(i)}.txt${i > 0 ? `, requires: [${id(i - 1)}]` : ""}}`);
  return tempRepo({ "workflow.yml": lines.join("\n") + "\n", "gen.sh": SCRIPT });
}

const calls = (dir: string): string[] => (existsSync(path.join(dir, "calls.log")) ? readFileSync(path.join(dir, "calls.log"), "utf8").trim().split("\n") : []);

function cli(dir: string, args: string[]) {
  return spawnSync(process.execPath, [CLI, ...args], { cwd: dir, encoding: "utf8", env: { ...process.env, NO_COLOR: "1", ...UNCONFINED } });
}

function outcome(dir: string) {
  const lock = readLock(path.join(dir, "workflow.lock.json"))!;
  return {
    outputs: Array.from({ length: PAIRS }, (_, i) => readFileSync(path.join(dir, `out/${id(i)}.txt`), "utf8")),
    lock: Object.fromEntries(Object.entries(lock.pairs).map(([pair, e]) => [pair, [e.configRef, e.contentHash]])),
  };
}

describe("a run whose store entries are in a pack", () => {
  it("killed with -9, leaves the next run everything it accepted, and deleted outputs come back from the store", { timeout: scaled(60_000) }, async () => {
    const reference = project();
    expect(cli(reference, ["run"]).status).toBe(0);

    const dir = project();
    const child = spawn(process.execPath, [CLI, "run"], {
      cwd: dir,
      env: { ...process.env, NO_COLOR: "1", ...UNCONFINED, HOLD: `${id(30)}1` },
      stdio: "ignore",
    });
    const exited = new Promise((resolve) => child.on("close", resolve));
    await until(() => calls(dir).includes(`${id(30)} 1`), "the call of p30");
    child.kill("SIGKILL");
    await exited;
    release(dir, id(30));
    // Thirty pairs wrote more than the entries a run writes as files of their own.
    expect(readdirSync(path.join(dir, ".pairflow/store/packs"))).toHaveLength(1);

    const rerun = cli(dir, ["run"]);
    expect(rerun.status, rerun.stderr).toBe(0);
    // Nothing accepted before the kill was generated again.
    const once = Array.from({ length: PAIRS }, (_, i) => `${id(i)} 1`);
    expect(calls(dir)).toEqual([...once.slice(0, 31), `${id(30)} 1`, ...once.slice(31)]);
    expect(outcome(dir)).toEqual(outcome(reference));

    rmSync(path.join(dir, "out"), { recursive: true });
    const restored = JSON.parse(cli(dir, ["run", "--json"]).stdout);
    expect(restored.totals.executed).toBe(0);
    expect(outcome(dir)).toEqual(outcome(reference));
    expect(calls(dir)).toHaveLength(PAIRS + 1);
  });
});
