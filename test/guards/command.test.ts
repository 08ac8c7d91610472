import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { commandGuard } from "../../src/guards/command.js";
import fc from "fast-check";
import { GuardConfigError, GuardError, type GuardRequest } from "../../src/model/ports.js";
import { tempRepo } from "../helpers/fixtures.js";
import { running } from "../helpers/processes.js";
import { pastSetup, until } from "../helpers/wait.js";

const groupAlive = (pid: number) => {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** A request whose artifact file holds `content`, in a fresh directory that is also the cwd. */
function request(content: string, config: Record<string, unknown>, signal = new AbortController().signal): GuardRequest {
  const cwd = tempRepo();
  const artifactPath = path.join(cwd, ".artifact");
  writeFileSync(artifactPath, content);
  return { pairId: "g_test", content, artifactPath, config, cwd, env: { PATH: process.env.PATH }, signal };
}

/** Runs a command that outlives its timeout, past its setup (see pastSetup): a guard error, its message the result. */
function timedOut(run: string, seconds: number) {
  return pastSetup(seconds, async (timeout) => {
    const req = request("x", { run, timeout });
    const result = await commandGuard(req).then(
      (verdict) => verdict as unknown,
      (err: Error) => (err instanceof GuardError ? err.message : err),
    );
    return { cwd: req.cwd, result };
  });
}

/** A process that leaves the command's group, keeps its output, and says its pid in escaped.pid once whole. */
const ESCAPE = "setsid sh -c 'echo $$ > escaped.tmp; mv escaped.tmp escaped.pid; exec sleep 600'";

describe("command guard verdicts", () => {
  it("accept on 0, reject on 1 or a declared status, and are a guard error on any other status or a signal", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.constantFrom(0, 1, 2, 3, 4, 5, 126, 127, 255), fc.integer({ min: 0, max: 255 })),
        fc.option(fc.uniqueArray(fc.integer({ min: 1, max: 255 }), { minLength: 1, maxLength: 3 }), { nil: undefined }),
        async (status, declared) => {
          const config = { run: `echo said ${status}; exit ${status}`, ...(declared ? { reject_exit_codes: declared } : {}) };
          const verdict = await commandGuard(request("x", config)).then(
            (v) => v,
            (err: Error) => err,
          );
          if (status === 0) expect(verdict).toEqual({ accepted: true, feedback: "" });
          else if ((declared ?? [1]).includes(status)) expect(verdict).toEqual({ accepted: false, feedback: `said ${status}` });
          else {
            expect(verdict).toBeInstanceOf(GuardError);
            expect((verdict as Error).message.split("\n")[0]).toMatch(new RegExp(`^guard error: the command guard .*(status ${status}|127|126)`));
          }
        },
      ),
      { numRuns: 25 },
    );
  });

  it("name a missing program, a signal and a bad declaration in one line", async () => {
    await expect(commandGuard(request("x", { run: "no-such-test-runner --run" }))).rejects.toThrow(
      /^guard error: the command guard could not find a program it runs \(exit status 127: command not found\); last output:\n.*no-such-test-runner/,
    );
    await expect(commandGuard(request("x", { run: "kill -9 $$" }))).rejects.toThrow(/^guard error: the command guard was killed by SIGKILL/);
    await expect(commandGuard(request("x", { run: "exit 1", reject_exit_codes: [0] }))).rejects.toThrow(GuardConfigError);
  });

  it("run the guard again on a guard error as often as guard_retries says, and give the verdict it then gives", async () => {
    // Fails with 3 (a flaky tool) until its third run, then rejects.
    const run = "n=$(cat runs 2>/dev/null || echo 0); n=$((n+1)); echo $n > runs; [ $n -ge 3 ] && { echo 'real failure'; exit 1; }; exit 3";
    await expect(commandGuard(request("x", { run, guard_retries: 1 }))).rejects.toThrow(/status 3/);
    const req = request("x", { run, guard_retries: 2 });
    expect(await commandGuard(req)).toEqual({ accepted: false, feedback: "real failure" });
    expect(readFileSync(path.join(req.cwd, "runs"), "utf8").trim()).toBe("3");
  });
});

describe("command guard", () => {
  it("lets the exit status decide, on the artifact named by PAIRFLOW_ARTIFACT", async () => {
    const config = { run: 'grep -q "def test_" "$PAIRFLOW_ARTIFACT"' };
    expect(await commandGuard(request("def test_add(): pass", config))).toEqual({ accepted: true, feedback: "" });
    expect(await commandGuard(request("def add(): pass", config))).toEqual({ accepted: false, feedback: "exited with status 1" });
  });

  it("runs in the workflow directory with the request's environment and the pair's id", async () => {
    const req = request("x", { run: 'echo "$PWD|$PAIRFLOW_PAIR|$GREETING"; exit 1' });
    req.env = { ...req.env, GREETING: "hi" };
    const result = await commandGuard(req);
    expect(result).toEqual({ accepted: false, feedback: `${req.cwd}|g_test|hi` });
  });

  it("adds guard_config.env to the environment, under pairflow's own variables", async () => {
    const req = request("x", { run: 'echo "$MODE|$GREETING|$PAIRFLOW_PAIR"; exit 1', env: { MODE: "strict", GREETING: "hello", PAIRFLOW_PAIR: "no" } });
    req.env = { ...req.env, GREETING: "hi" };
    expect(await commandGuard(req)).toEqual({ accepted: false, feedback: "strict|hello|g_test" });
    await expect(commandGuard(request("x", { run: "true", env: ["A=1"] }))).rejects.toThrow(
      "guard_config.env of the command guard must be a mapping of names to strings; found a list",
    );
  });

  it("gives stdout and stderr as feedback", async () => {
    const result = await commandGuard(request("x", { run: "echo 'to stdout'; echo 'to stderr' >&2; exit 1" }));
    expect(result.accepted).toBe(false);
    expect(result.feedback.split("\n").sort()).toEqual(["to stderr", "to stdout"]);
  });

  it("keeps only the last 40 lines of a long output", async () => {
    const result = await commandGuard(request("x", { run: "seq 1 100; exit 1" }));
    const last40 = Array.from({ length: 40 }, (_, i) => String(61 + i)).join("\n");
    expect(result).toEqual({ accepted: false, feedback: `[earlier output omitted]\n${last40}` });
  });

  it("keeps only the last 4000 characters of long lines", async () => {
    const result = await commandGuard(request("x", { run: "printf 'a%.0s' $(seq 1 5000); echo END; exit 1" }));
    expect(result.feedback).toBe(`[earlier output omitted]\n${"a".repeat(3997)}END`);
  });

  // The commands below run far longer than any test may: only being stopped ends them.
  it("kills the command and everything it started when it times out", async () => {
    const { result, cwd, timeout } = await timedOut("sleep 600 & echo $! > sleep.pid; touch ready; wait", 0.5);
    expect(result).toBe(`guard error: the command guard timed out after ${timeout}s`);
    // Killed: its pipes are closed, though a busy machine may take a moment more to reap it.
    const pid = Number(readFileSync(path.join(cwd, "sleep.pid"), "utf8"));
    await until(() => !running(pid), "the command's child to be gone");
  });

  it("kills a command that ignores SIGTERM after the grace period", async () => {
    const { result, timeout } = await timedOut("trap '' TERM; echo waiting; touch ready; while true; do sleep 0.1; done", 0.3);
    expect(result).toBe(`guard error: the command guard timed out after ${timeout}s; last output:\nwaiting`);
  });

  it("stops the command and throws when the run is cancelled", async () => {
    const controller = new AbortController();
    const req = request("x", { run: "sleep 600 & echo $! > sleep.tmp; mv sleep.tmp sleep.pid; wait" }, controller.signal);
    const verdict = commandGuard(req);
    // Cancelled once the command has started what it waits for.
    await until(() => existsSync(path.join(req.cwd, "sleep.pid")), "the command to start");
    controller.abort(new Error("run cancelled"));
    await expect(verdict).rejects.toThrow("run cancelled");
    const pid = Number(readFileSync(path.join(req.cwd, "sleep.pid"), "utf8"));
    await until(() => !running(pid), "the command's child to be gone");
  });

  it("does not start when the run is already cancelled", async () => {
    const controller = new AbortController();
    controller.abort(new Error("run cancelled"));
    const req = request("x", { run: "touch started" }, controller.signal);
    await expect(commandGuard(req)).rejects.toThrow("run cancelled");
  });

  it("asks for guard_config.run and a positive timeout", async () => {
    await expect(commandGuard(request("x", {}))).rejects.toThrow(GuardConfigError);
    await expect(commandGuard(request("x", {}))).rejects.toThrow(/the command guard needs guard_config\.run/);
    await expect(commandGuard(request("x", { run: "true", timeout: 0 }))).rejects.toThrow(
      "guard_config.timeout of the command guard must be a number greater than 0; found number 0",
    );
  });

  it("holds its timeout when the command leaves a process outside its group that keeps the output open, and kills that process", async () => {
    const run = `${ESCAPE} & while [ ! -s escaped.pid ]; do sleep 0.01; done; echo waiting; touch ready; sleep 600`;
    const { result, cwd, timeout } = await timedOut(run, 0.3);
    expect(result).toBe(`guard error: the command guard timed out after ${timeout}s; last output:\nwaiting`);
    const escaped = Number(readFileSync(path.join(cwd, "escaped.pid"), "utf8"));
    await until(() => !running(escaped), "the escaped process to be gone");
  });

  it("gives its verdict when the command exits, whatever it left holding the output, and kills what it left", async () => {
    const run = `${ESCAPE} & while [ ! -s escaped.pid ]; do sleep 0.01; done; echo failing; exit 1`;
    const req = request("x", { run });
    expect(await commandGuard(req)).toEqual({ accepted: false, feedback: "failing" });
    const escaped = Number(readFileSync(path.join(req.cwd, "escaped.pid"), "utf8"));
    await until(() => !running(escaped), "the escaped process to be gone");
  });

  it("records its process group before the command runs, and the group is gone when the verdict returns", async () => {
    const req = request("x", { run: "touch ran; (sleep 600 </dev/null >/dev/null 2>&1 &)" });
    const events: string[] = [];
    let pid = 0;
    req.onProcess = (group) => {
      pid = group.pid;
      events.push(`start ${group.pid > 1} ${/^\d+$/.test(group.startTime)} ran=${existsSync(path.join(req.cwd, "ran"))}`);
    };
    expect(await commandGuard(req)).toEqual({ accepted: true, feedback: "" });
    expect(events).toEqual(["start true true ran=false"]);
    expect(existsSync(path.join(req.cwd, "ran"))).toBe(true);
    // The trace ends a group with its attempt (src/records/write.ts): the group, with what it left
    // behind, was killed before the verdict returned, and is gone as soon as the kernel has reaped it.
    await until(() => !groupAlive(pid), "the group to be gone");
  });
});
