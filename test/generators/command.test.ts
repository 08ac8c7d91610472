import { existsSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { commandGenerator, stderrTail } from "../../src/generators/command.js";
import type { GenerateRequest, GenerateResult } from "../../src/model/ports.js";
import { failure } from "./helpers.js";
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

function request(config: Record<string, unknown>, overrides: Partial<GenerateRequest> = {}): GenerateRequest {
  return {
    pairId: "g_test",
    attempt: 1,
    model: null,
    prompt: "Write a haiku.\n",
    config,
    cwd: mkdtempSync(path.join(tmpdir(), "pairflow-command-")),
    env: { PATH: process.env.PATH },
    signal: new AbortController().signal,
    ...overrides,
  };
}

/** Runs a command that outlives its timeout, past its setup (see pastSetup). */
async function timedOut(run: string, seconds: number) {
  const { cwd, result, timeout } = await pastSetup(seconds, async (timeout) => {
    const req = request({ run, timeout });
    return { cwd: req.cwd, result: await failure(commandGenerator(req)) };
  });
  return { error: result, cwd, timeout };
}

/** A process that leaves the command's group, keeps its stdout, and says its pid in escaped.pid once whole. */
const ESCAPE = "setsid sh -c 'echo $$ > escaped.tmp; mv escaped.tmp escaped.pid; exec sleep 600'";

function text(result: GenerateResult): string {
  return Buffer.from(result.content).toString("utf8");
}

describe("command generator", () => {
  it("returns the command's stdout as the artifact", async () => {
    const result = await commandGenerator(request({ run: "printf 'héllo\\nwörld\\n'" }));
    expect(result).toEqual({ content: Buffer.from("héllo\nwörld\n") });
  });

  it("gives the prompt on stdin and in PAIRFLOW_PROMPT_FILE, and deletes the file afterwards (in the background)", async () => {
    const prompt = "line one\n$(touch injected) `touch injected2` 'quote\"\n";
    const req = request({ run: 'cat > stdin.txt; cp "$PAIRFLOW_PROMPT_FILE" file.txt; printf %s "$PAIRFLOW_PROMPT_FILE"' }, { prompt });
    const promptFile = text(await commandGenerator(req));
    expect(readFileSync(path.join(req.cwd, "stdin.txt"), "utf8")).toBe(prompt);
    expect(readFileSync(path.join(req.cwd, "file.txt"), "utf8")).toBe(prompt);
    await until(() => !existsSync(promptFile), "the prompt file is removed");
    // The prompt is data, never shell code.
    expect(existsSync(path.join(req.cwd, "injected"))).toBe(false);
    expect(existsSync(path.join(req.cwd, "injected2"))).toBe(false);
  });

  it("gives each attempt only its own prompt and dependencies, whatever earlier attempts left behind", async () => {
    // An attempt that litters its directories, replaces its prompt file with a link, and one that
    // fails: the attempts after them still see exactly their own files, and nothing is written through the link.
    const target = path.join(mkdtempSync(path.join(tmpdir(), "pairflow-command-")), "target.txt");
    writeFileSync(target, "untouched");
    const litter =
      'touch "$PAIRFLOW_DEPENDENCIES_DIR/stray" "$(dirname "$PAIRFLOW_PROMPT_FILE")/stray"; rm "$PAIRFLOW_PROMPT_FILE"; ln -s "$TARGET" "$PAIRFLOW_PROMPT_FILE"';
    const list = 'cd "$PAIRFLOW_DEPENDENCIES_DIR" && ls -A | tr "\\n" " " && cat * && printf "|" && cat "$PAIRFLOW_PROMPT_FILE"';
    for (let round = 0; round < 3; round++) {
      const deps = [{ id: `a${round}`, content: `A${round};` }];
      await commandGenerator(request({ run: litter }, { env: { PATH: process.env.PATH, TARGET: target }, dependencies: deps }));
      await failure(commandGenerator(request({ run: "exit 1" }, { dependencies: deps })));
      const seen = await Promise.all(
        ["x", "y"].map((id) => commandGenerator(request({ run: list }, { prompt: `p${id}${round}`, dependencies: [{ id, content: `${id}${round};` }] }))),
      );
      expect(seen.map(text)).toEqual([`x x${round};|px${round}`, `y y${round};|py${round}`]);
    }
    expect(readFileSync(target, "utf8")).toBe("untouched");
  });

  it("never writes a later prompt into a file an earlier command linked its prompt file to", async () => {
    const keep = request({ run: 'ln "$PAIRFLOW_PROMPT_FILE" kept.txt && cp "$PAIRFLOW_PROMPT_FILE" copy.txt' }, { prompt: "first prompt" });
    await commandGenerator(keep);
    for (let i = 0; i < 3; i++) await commandGenerator(request({ run: 'cat "$PAIRFLOW_PROMPT_FILE"' }, { prompt: `later prompt ${i}` }));
    expect(readFileSync(path.join(keep.cwd, "kept.txt"), "utf8")).toBe("first prompt");
    expect(readFileSync(path.join(keep.cwd, "copy.txt"), "utf8")).toBe("first prompt");
  });

  it("runs in request.cwd with request.env and the PAIRFLOW_* variables", async () => {
    const run = 'printf "%s|%s|%s|%s|%s" "$(pwd -P)" "$PAIRFLOW_PAIR" "$PAIRFLOW_ATTEMPT" "$PAIRFLOW_MODEL" "$HI"';
    const req = request({ run }, { attempt: 3, model: "gpt-4o", env: { PATH: process.env.PATH, HI: "hi" } });
    expect(text(await commandGenerator(req))).toBe(`${realpathSync(req.cwd)}|g_test|3|gpt-4o|hi`);

    const noModel = await commandGenerator(request({ run: 'printf "[%s]" "$PAIRFLOW_MODEL"' }));
    expect(text(noModel)).toBe("[]");
  });

  it("adds generator_config.env to the environment, under pairflow's own variables", async () => {
    const run = 'printf "%s|%s|%s" "$MODE" "$HI" "$PAIRFLOW_PAIR"';
    const env = { MODE: "strict", HI: "from config", PAIRFLOW_PAIR: "not this" };
    const req = request({ run, env }, { env: { PATH: process.env.PATH, HI: "from the environment" } });
    expect(text(await commandGenerator(req))).toBe("strict|from config|g_test");
  });

  it("rejects a generator_config.env that does not map names to strings", async () => {
    const error = await failure(commandGenerator(request({ run: "true", env: { N: 1 } })));
    expect(error.message).toBe("command: generator_config.env must map variable names to strings");
  });

  it("does not crash when the command ignores a large prompt on stdin", async () => {
    const result = await commandGenerator(request({ run: "echo done" }, { prompt: "x".repeat(4 * 1024 * 1024) }));
    expect(text(result)).toBe("done\n");
  });

  it("fails on a non-zero exit with the exit code and the tail of stderr", async () => {
    const run = 'i=1; while [ $i -le 30 ]; do echo "problem $i" >&2; i=$((i+1)); done; echo partial; exit 3';
    const error = await failure(commandGenerator(request({ run })));
    expect(error.message).toContain("exited with code 3");
    expect(error.message).toContain("problem 30");
    expect(error.message).toContain("problem 11");
    expect(error.message).not.toContain("problem 10\n");
    expect(error.message).not.toContain("partial");
  });

  it("asks for generator_config.run when it is missing", async () => {
    const error = await failure(commandGenerator(request({})));
    expect(error.message).toContain("generator_config.run");
  });

  // The commands below run far longer than any test may: only being stopped ends them.
  it("kills the command and what it started when it times out", async () => {
    const { error, cwd, timeout } = await timedOut("sleep 600 & echo $! > child.pid; touch ready; sleep 600", 0.5);
    expect(error.message).toContain(`timed out after ${timeout}s`);
    const childPid = Number(readFileSync(path.join(cwd, "child.pid"), "utf8"));
    await until(() => !running(childPid), "the command's child to be gone");
  });

  it("escalates to SIGKILL when the command ignores SIGTERM", async () => {
    // An ignored signal stays ignored across exec, so `sleep` ignores SIGTERM too.
    const { error, cwd, timeout } = await timedOut("trap '' TERM; sleep 600 & echo $! > child.pid; touch ready; wait", 0.3);
    expect(error.message).toContain(`timed out after ${timeout}s`);
    const childPid = Number(readFileSync(path.join(cwd, "child.pid"), "utf8"));
    await until(() => !running(childPid), "the command's child to be gone");
  });

  it("stops the command when the run is cancelled", async () => {
    const controller = new AbortController();
    const req = request({ run: "echo $$ > shell.tmp; mv shell.tmp shell.pid; sleep 600" }, { signal: controller.signal });
    const outcome = failure(commandGenerator(req));
    // Cancelled once the command runs.
    await until(() => existsSync(path.join(req.cwd, "shell.pid")), "the command to start");
    controller.abort();
    const error = await outcome;
    expect(error.message).toContain("cancelled");
    const shellPid = Number(readFileSync(path.join(req.cwd, "shell.pid"), "utf8"));
    expect(running(shellPid)).toBe(false);
  });

  it("does not start the command when the run is already cancelled", async () => {
    const controller = new AbortController();
    controller.abort();
    const req = request({ run: "touch ran" }, { signal: controller.signal });
    await failure(commandGenerator(req));
    expect(existsSync(path.join(req.cwd, "ran"))).toBe(false);
  });
});

describe("command generator: bytes, sizes and what a command leaves behind", () => {
  it("returns binary and non-UTF-8 output byte for byte", async () => {
    const bytes = Buffer.from([0x00, 0xff, 0xfe, 0x80, 0x0a, 0xc3, 0x28, 0xe2, 0x82, 0x0d, 0x0a, 0xef, 0xbb, 0xbf]);
    const req = request({ run: "cat out.bin" });
    writeFileSync(path.join(req.cwd, "out.bin"), bytes);
    const { content } = await commandGenerator(req);
    expect(Buffer.isBuffer(content)).toBe(true);
    expect(Buffer.compare(content as Buffer, bytes)).toBe(0);
  });

  it("stops a command printing 200 MB at the output limit, naming the pair and the limit, without holding the output", async () => {
    const before = process.memoryUsage().rss;
    const req = request({ run: "head -c 200000000 /dev/zero; echo finished > finished" }, { maxOutputBytes: 8 * 2 ** 20 });
    const error = await failure(commandGenerator(req));
    expect(error.message).toContain("g_test printed more than the output limit of 8 MiB (max_output_bytes)");
    // The command was stopped, not waited for.
    expect(existsSync(path.join(req.cwd, "finished"))).toBe(false);
    expect(process.memoryUsage().rss - before).toBeLessThan(150 * 2 ** 20);
  });

  it("accepts output up to the limit exactly", async () => {
    const req = request({ run: "head -c 1000 /dev/zero" }, { maxOutputBytes: 1000 });
    expect((await commandGenerator(req)).content).toHaveLength(1000);
    const over = await failure(commandGenerator(request({ run: "head -c 1001 /dev/zero" }, { maxOutputBytes: 1000 })));
    expect(over.message).toContain("output limit of 1000 bytes");
  });

  it("times out a command whose background process left the group and keeps stdout open, and kills that process", async () => {
    const run = `${ESCAPE} & while [ ! -s escaped.pid ]; do sleep 0.01; done; touch ready; sleep 600`;
    const { error, cwd, timeout } = await timedOut(run, 0.3);
    expect(error.message).toContain(`timed out after ${timeout}s`);
    const escaped = Number(readFileSync(path.join(cwd, "escaped.pid"), "utf8"));
    await until(() => !running(escaped), "the escaped process to be gone");
  });

  it("returns when the command exits, even if a process that left its group still holds stdout, and kills that process", async () => {
    const run = `${ESCAPE} & while [ ! -s escaped.pid ]; do sleep 0.01; done; printf out`;
    const req = request({ run });
    expect(text(await commandGenerator(req))).toBe("out");
    const escaped = Number(readFileSync(path.join(req.cwd, "escaped.pid"), "utf8"));
    await until(() => !running(escaped), "the escaped process to be gone");
  });

  it("announces the command's process group, with its start time, before the command runs, and it is gone when the outcome returns", async () => {
    const req = request({ run: "touch ran; (sleep 600 </dev/null >/dev/null 2>&1 &) ; printf ok" });
    const seen: { pid: number; startTime: string; ranYet: boolean; stat: string }[] = [];
    req.onProcess = (group) => {
      const stat = readFileSync(`/proc/${group.pid}/stat`, "utf8");
      seen.push({ ...group, ranYet: existsSync(path.join(req.cwd, "ran")), stat });
    };
    expect(text(await commandGenerator(req))).toBe("ok");
    expect(seen).toHaveLength(1);
    expect(seen[0]!.ranYet).toBe(false);
    const fields = seen[0]!.stat.slice(seen[0]!.stat.lastIndexOf(")") + 2).split(" ");
    // Field 22 of /proc/<pid>/stat is the start time; fields 5 and 6 are the group and the session.
    expect(fields[19]).toBe(seen[0]!.startTime);
    expect([Number(fields[2]), Number(fields[3])]).toEqual([seen[0]!.pid, seen[0]!.pid]);
    // The trace ends a group with its attempt (src/records/write.ts): the group, with what it left
    // behind, was killed before the outcome returned, and is gone as soon as the kernel has reaped it.
    await until(() => !groupAlive(seen[0]!.pid), "the group to be gone");
    expect(existsSync(path.join(req.cwd, "ran"))).toBe(true);
  });

  it("never runs the command when its group cannot be recorded", async () => {
    const req = request({ run: "touch ran" });
    req.onProcess = () => {
      throw new Error("the run record is not writable");
    };
    await expect(commandGenerator(req)).rejects.toThrow("the run record is not writable");
    await new Promise((r) => setTimeout(r, 200));
    expect(existsSync(path.join(req.cwd, "ran"))).toBe(false);
  });
});

describe("stderrTail", () => {
  it("keeps at most the last 20 lines and 2000 characters", () => {
    const lines = Array.from({ length: 50 }, (_, i) => `line ${i + 1}`).join("\n");
    expect(stderrTail(`${lines}\n\n`).split("\n")).toEqual(Array.from({ length: 20 }, (_, i) => `line ${i + 31}`));
    const long = stderrTail("y".repeat(5000));
    expect(long).toBe(`…${"y".repeat(2000)}`);
  });
});
