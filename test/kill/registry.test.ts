/**
 * The process groups pairflow starts die with it: when it exits with a command still running, and
 * when a SIGTERM, SIGINT or SIGHUP that nothing else handles ends it.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { REPO, tempRepo } from "../helpers/fixtures.js";
import { running } from "../helpers/processes.js";
import { until } from "../helpers/wait.js";

/** Starts a command that would run ten minutes, says so once it runs, then ends as told by argv[2]. */
const HOLDER = `import { readFileSync } from "node:fs";
import { runCommand } from ${JSON.stringify(path.join(REPO, "src/processes/children.ts"))};
void runCommand({
  command: "echo $$ > leader.pid; sleep 600 & echo $! > member.pid; wait",
  cwd: process.cwd(), env: process.env, timeoutMs: 120000, signal: new AbortController().signal,
  collectStdout: true, tailBytes: 1024,
});
const started = () => { try { return readFileSync("member.pid", "utf8").trim() !== ""; } catch { return false; } };
while (!started()) await new Promise((r) => setTimeout(r, 10));
process.stdout.write("started\\n");
if (process.argv[2] === "exit") process.exit(3);
if (process.argv[2] === "throw") throw new Error("a bug");
setInterval(() => {}, 1000); // wait to be signalled
`;

/** tsx's loader, so the holder can import pairflow's sources from a directory that has no node_modules. */
const TSX = pathToFileURL(path.join(REPO, "node_modules/tsx/dist/loader.mjs")).href;

async function holder(how: string, signal?: NodeJS.Signals): Promise<{ dir: string; code: number | null; signal: NodeJS.Signals | null }> {
  const dir = tempRepo({ "holder.mjs": HOLDER });
  const child = spawn(process.execPath, ["--import", TSX, path.join(dir, "holder.mjs"), how], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
  let err = "";
  child.stderr.on("data", (c: Buffer) => (err += c.toString()));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (c: Buffer) => c.toString().includes("started") && resolve());
    child.on("exit", () => reject(new Error(`the holder ended before starting its command: ${err}`)));
  });
  if (signal) child.kill(signal);
  const [code, sig] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on("exit", (c, s) => resolve([c, s])));
  return { dir, code, signal: sig };
}

/** Waits until none of these processes runs: the command was killed, since it sleeps for ten minutes. */
async function gone(pids: number[]): Promise<void> {
  for (const pid of pids) await until(() => !running(pid), `process ${pid} to be gone`);
}

function pids(dir: string): number[] {
  return ["leader.pid", "member.pid"].map((f) => Number(readFileSync(path.join(dir, f), "utf8")));
}

describe.skipIf(!existsSync("/proc/self/stat"))("the registry of process groups", () => {
  it("kills every running command, and what it started, when pairflow exits", async () => {
    const { dir, code } = await holder("exit");
    expect(code).toBe(3);
    await gone(pids(dir));
  });

  it("kills them when an uncaught error ends pairflow", async () => {
    const { dir, code } = await holder("throw");
    expect(code).not.toBe(0);
    await gone(pids(dir));
  });

  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
    it(`kills them on a ${signal} nothing else handles, and pairflow still dies of it`, async () => {
      const { dir, signal: died } = await holder("wait", signal);
      expect(died).toBe(signal);
      await gone(pids(dir));
    });
  }
});
