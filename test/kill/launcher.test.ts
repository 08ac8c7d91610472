/**
 * Commands are started by a small launcher process. If it dies while commands run, those commands
 * are stopped and fail saying so, and the next command gets a new launcher.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { COMMAND_ID_VARIABLE, LAUNCH_AFTER, prepareLauncher, runCommand, stopLauncher } from "../../src/processes/children.js";
import { tempRepo } from "../helpers/fixtures.js";
import { scaled } from "../helpers/time.js";
import { until } from "../helpers/wait.js";

function stat(pid: number): string[] | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    return text.slice(text.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined;
  }
}

const running = (pid: number) => (stat(pid)?.[0] ?? "Z") !== "Z";

/** This process's children whose command line is a `node -e` script. */
function launchers(): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => {
      if (Number(stat(pid)?.[1]) !== process.pid) return false;
      try {
        return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")[1] === "-e";
      } catch {
        return false;
      }
    });
}

function command(dir: string, run: string, env: NodeJS.ProcessEnv = { PATH: process.env.PATH }) {
  return runCommand({
    command: run,
    cwd: dir,
    env,
    timeoutMs: 60_000,
    signal: new AbortController().signal,
    collectStdout: true,
    tailBytes: 1024,
  });
}

describe.skipIf(!existsSync("/proc/self/stat"))("the launcher of commands", () => {
  it("stops the commands it started when it dies, says so, and the next command runs", async () => {
    const dir = tempRepo({});
    // A launcher an earlier test file of this process started, idle now, is not this one.
    await stopLauncher();
    const before = new Set(launchers());
    const ours = () => launchers().filter((pid) => !before.has(pid));
    // The first few commands of a process are forked from it; those after, by the launcher, started
    // anew once the last one stopped.
    for (let i = 0; i < LAUNCH_AFTER; i++) expect((await command(dir, "printf here")).stdout.toString()).toBe("here");
    const outcome = command(dir, "echo $$ > shell.pid; sleep 600 & echo $! > member.pid; wait");
    const caught = outcome.catch((err: Error) => err);
    const pidFile = (name: string) => {
      try {
        return Number(readFileSync(path.join(dir, name), "utf8")) || undefined;
      } catch {
        return undefined;
      }
    };
    await until(() => pidFile("member.pid") !== undefined, "the command to start");
    const found = ours();
    expect(found).toHaveLength(1);
    process.kill(found[0]!, "SIGKILL");
    const err = await caught;
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(/ended; the command was stopped/);
    for (const pid of [pidFile("shell.pid")!, pidFile("member.pid")!]) await until(() => !running(pid), `process ${pid} to be gone`);

    const next = await command(dir, "printf again");
    expect(next.stdout.toString()).toBe("again");
  });

  it("gives each command it starts exactly the environment asked for, whatever the commands before it had", { timeout: scaled(60_000) }, async () => {
    const dir = tempRepo({});
    await stopLauncher();
    prepareLauncher(LAUNCH_AFTER + 1);
    expect(launchers()).toHaveLength(1);
    // A few names, the ones an object treats specially among them, and values with any character but NUL.
    const name = fc.constantFrom("PATH", "A", "B_2", "__proto__", "constructor", "toString", "hasOwnProperty");
    const value = fc.string({ maxLength: 12 }).filter((v) => !v.includes("\0"));
    const env = fc.dictionary(name, value, { maxKeys: 7 }).map((e) => ({ ...e, PATH: process.env.PATH }));
    await fc.assert(
      fc.asyncProperty(fc.array(env, { minLength: 1, maxLength: 6 }), async (envs) => {
        // A new launcher each time: the first environment it is sent is the one it keeps whole.
        await stopLauncher();
        prepareLauncher(LAUNCH_AFTER + 1);
        for (const asked of envs) {
          const seen = (await command(dir, "exec /usr/bin/env -0", asked)).stdout.toString().split("\0").filter(Boolean);
          const shown = new Map(seen.map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)]));
          // What the shell adds of its own, and pairflow's mark for what leaves the group.
          for (const own of ["PWD", "OLDPWD", "SHLVL", "_", COMMAND_ID_VARIABLE]) shown.delete(own);
          expect(Object.fromEntries(shown)).toEqual(Object.fromEntries(Object.entries(asked)));
        }
      }),
      { numRuns: 15 },
    );
  });
});
