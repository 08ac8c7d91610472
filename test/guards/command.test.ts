import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { commandGuard } from "../../src/guards/command.js";
import { GuardConfigError, type GuardRequest } from "../../src/model/ports.js";
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

/** Runs a command that outlives its timeout, past its setup (see pastSetup). */
function timedOut(run: string, seconds: number) {
  return pastSetup(seconds, async (timeout) => {
    const req = request("x", { run, timeout });
    return { cwd: req.cwd, result: await commandGuard(req) };
  });
}

/** A process that leaves the command's group, keeps its output, and says its pid in escaped.pid once whole. */
const ESCAPE = "setsid sh -c 'echo $$ > escaped.tmp; mv escaped.tmp escaped.pid; exec sleep 600'";

describe("command guard", () => {
  it("lets the exit status decide, on the artifact named by PAIRFLOW_ARTIFACT", async () => {
    const config = { run: 'grep -q "def test_" "$PAIRFLOW_ARTIFACT"' };
    expect(await commandGuard(request("def test_add(): pass", config))).toEqual({ accepted: true, feedback: "" });
    expect(await commandGuard(request("def add(): pass", config))).toEqual({ accepted: false, feedback: "exited with status 1" });
  });

  it("runs in the workflow directory with the request's environment and the pair's id", async () => {
    const req = request("x", { run: 'echo "$PWD|$PAIRFLOW_PAIR|$GREETING"; exit 3' });
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
    expect(result).toEqual({ accepted: false, feedback: `timed out after ${timeout}s` });
    const pid = Number(readFileSync(path.join(cwd, "sleep.pid"), "utf8"));
    expect(running(pid)).toBe(false);
  });

  it("kills a command that ignores SIGTERM after the grace period", async () => {
    const { result, timeout } = await timedOut("trap '' TERM; echo waiting; touch ready; while true; do sleep 0.1; done", 0.3);
    expect(result).toEqual({ accepted: false, feedback: `timed out after ${timeout}s; last output:\nwaiting` });
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
    expect(running(pid)).toBe(false);
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
    expect(result).toEqual({ accepted: false, feedback: `timed out after ${timeout}s; last output:\nwaiting` });
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
