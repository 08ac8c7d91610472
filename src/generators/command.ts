/**
 * The `command` generator: a shell command that reads the prompt and prints the artifact.
 * The prompt travels on stdin and in a file, never on the command line, so it cannot inject shell code.
 * generator_config.env adds variables to the command's environment. The dependencies' accepted
 * artifacts are also files, one per pair id, in the directory PAIRFLOW_DEPENDENCIES_DIR names.
 */
import {
  closeSync,
  constants,
  fstatSync,
  ftruncateSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { boundedKey } from "../refs/keys.js";
import { GeneratorError, type Generator, type GenerateRequest, type GenerateResult } from "../model/ports.js";
import { formatBytes } from "../model/text.js";
import { CommandStartError, runCommand } from "../processes/children.js";
import { limitMessage } from "../processes/limits.js";
import { startCommand } from "../processes/trace.js";
import { removeInBackground } from "../workspace/scratch.js";

const DEFAULT_TIMEOUT_SECONDS = 600;
/** How much of stderr is kept while the command runs; only the tail is ever shown. */
const STDERR_KEEP_BYTES = 64 * 1024;
const TAIL_LINES = 20;
const TAIL_CHARS = 2000;

export const commandGenerator: Generator = async (request) => {
  const run = request.config.run;
  if (typeof run !== "string" || run.trim() === "") {
    throw new GeneratorError("command: set generator_config.run to the shell command that prints the artifact");
  }
  const timeout = request.config.timeout ?? DEFAULT_TIMEOUT_SECONDS;
  if (typeof timeout !== "number" || !Number.isFinite(timeout) || timeout <= 0) {
    throw new GeneratorError("command: generator_config.timeout must be a number of seconds > 0");
  }
  const env = request.config.env ?? {};
  if (typeof env !== "object" || env === null || Array.isArray(env) || !Object.values(env).every((v) => typeof v === "string")) {
    throw new GeneratorError("command: generator_config.env must map variable names to strings");
  }
  if (request.config.network !== undefined && typeof request.config.network !== "boolean") {
    throw new GeneratorError("command: generator_config.network must be true or false");
  }
  if (request.signal.aborted) throw new GeneratorError("command: cancelled");

  const own = takePromptDir();
  const placed: Placed[] = [];
  try {
    placed.push(place(own.promptFile, request.prompt));
    // The dependencies' accepted artifacts, one file each, named by pair id (see docs/prompts.md).
    for (const dep of request.dependencies ?? []) placed.push(place(path.join(own.dependencies, dependencyFileName(dep.id)), dep.content));
    return await generate(run, timeout, own.promptFile, { ...(env as Record<string, string>), PAIRFLOW_DEPENDENCIES_DIR: own.dependencies }, request);
  } finally {
    givePromptDirBack(own, placed);
  }
};

/**
 * A command's private directory: its prompt file and its dependencies directory. Making one and
 * removing it took half a dozen file system calls a command, as many as the rest of a pair's file
 * work; so a directory whose command is over is emptied and kept for the next command, unless
 * anything but what pairflow put there is left in it. Made with the synchronous calls: a few system
 * calls on a private directory, which through the thread pool waited their turn behind the run's
 * other file work.
 */
interface PromptDir {
  dir: string;
  promptFile: string;
  dependencies: string;
}

/** Directories whose commands are over, emptied, for the next commands; at most MAX_IDLE_DIRS. */
const idle: PromptDir[] = [];
const MAX_IDLE_DIRS = 64;
let exitHook = false;

/**
 * The files that held earlier commands' prompts and dependencies, in a private directory of their
 * own, for the next ones. A file made and deleted for each command costs a new inode each time,
 * and where many were deleted lately (a busy disk) the file system searches long for one it may
 * give: most of a run's system time went there. A kept file is written again and renamed into
 * place, which takes no new inode.
 */
let spareDir: string | undefined;
const spares: Spare[] = [];
const MAX_SPARES = 256;
let spareNames = 0;

interface Spare {
  file: string;
  ino: number;
}

/** A file put into a command's directory: where, and the spare it came from. */
interface Placed {
  target: string;
  spare: Spare;
}

function onExit(): void {
  if (exitHook) return;
  exitHook = true;
  process.on("exit", () => {
    for (const left of idle.splice(0)) rmSync(left.dir, { recursive: true, force: true });
    if (spareDir !== undefined) rmSync(spareDir, { recursive: true, force: true });
  });
}

function takePromptDir(): PromptDir {
  const kept = idle.pop();
  if (kept) return kept;
  const dir = mkdtempSync(path.join(tmpdir(), "pairflow-prompt-"));
  const dependencies = path.join(dir, "dependencies");
  try {
    mkdirSync(dependencies, { mode: 0o700 });
  } catch (err) {
    removeInBackground(dir);
    throw err;
  }
  onExit();
  return { dir, promptFile: path.join(dir, "prompt.txt"), dependencies };
}

/**
 * Puts `content` at `target`, readable by its owner alone: a spare file written and renamed there
 * (a link in its place is replaced, never followed), or a new one.
 */
function place(target: string, content: string | Uint8Array): Placed {
  for (;;) {
    const kept = spares.pop();
    let spare: Spare;
    let fd: number;
    if (kept) {
      try {
        fd = openSync(kept.file, constants.O_WRONLY | constants.O_NOFOLLOW);
      } catch {
        rmSync(kept.file, { recursive: true, force: true });
        continue;
      }
      spare = kept;
    } else {
      if (spareDir === undefined) {
        spareDir = mkdtempSync(path.join(tmpdir(), "pairflow-spare-"));
        onExit();
      }
      const file = path.join(spareDir, String(++spareNames));
      fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
      spare = { file, ino: 0 };
    }
    try {
      const stat = fstatSync(fd);
      // Only a file of pairflow's own, named nowhere else, is written again.
      if (kept && (!stat.isFile() || stat.ino !== kept.ino || stat.nlink !== 1)) {
        rmSync(kept.file, { force: true });
        continue;
      }
      spare.ino = stat.ino;
      const bytes = typeof content === "string" ? Buffer.from(content, "utf8") : content;
      // From the start (the file was just opened), all of it; the rest of a longer earlier content goes.
      writeFileSync(fd, bytes);
      ftruncateSync(fd, bytes.length);
    } finally {
      closeSync(fd);
    }
    renameSync(spare.file, target);
    return { target, spare };
  }
}

/**
 * Takes back what pairflow put into a command's directory; the directory is kept for another only
 * when nothing else is left in it (a command may litter it, or put a link where its prompt file
 * was: the next command sees only its own files, and nothing is ever written through a link). A
 * file the command replaced, or linked elsewhere, is not kept.
 */
function givePromptDirBack(own: PromptDir, placed: readonly Placed[]): void {
  try {
    for (const { target, spare } of placed) {
      const stat = lstatSync(target, { throwIfNoEntry: false });
      if (stat === undefined || stat.ino !== spare.ino) continue;
      if (stat.isFile() && stat.nlink === 1 && spares.length < MAX_SPARES) {
        renameSync(target, spare.file);
        spares.push(spare);
      } else unlinkSync(target);
    }
    const top = readdirSync(own.dir, { withFileTypes: true });
    const clean =
      top.length === 1 && top[0]!.name === "dependencies" && top[0]!.isDirectory() && readdirSync(own.dependencies).length === 0 && idle.length < MAX_IDLE_DIRS;
    if (clean) {
      idle.push(own);
      return;
    }
  } catch {
    // Whatever is wrong with it, it goes.
  }
  removeInBackground(own.dir);
}

/**
 * A dependency's file name in PAIRFLOW_DEPENDENCIES_DIR: its pair id, with every character other
 * than letters, digits, "_", "-" and "." percent-encoded as in a URL (so `translate[docs/a.md]` is
 * `translate%5Bdocs%2Fa.md%5D`), and "." and ".." encoded whole. A name longer than 150 bytes
 * (which a long file name makes) is its first 80 characters, "~" and the sha256 of the id
 * (boundedKey): no file system takes a name of more than 255.
 */
export function dependencyFileName(id: string): string {
  const name = [...id]
    .map((c) => (/^[A-Za-z0-9_.-]$/.test(c) ? c : [...Buffer.from(c, "utf8")].map((b) => `%${b.toString(16).toUpperCase().padStart(2, "0")}`).join("")))
    .join("");
  return name === "." || name === ".." ? name.replaceAll(".", "%2E") : boundedKey(name, id);
}

async function generate(
  run: string,
  timeoutSeconds: number,
  promptFile: string,
  env: Record<string, string>,
  request: GenerateRequest,
): Promise<GenerateResult> {
  // The workflow's timeout, cut to the limit whoever started pairflow set.
  const seconds = Math.min(timeoutSeconds, request.limits?.timeSeconds ?? Infinity);
  let outcome;
  try {
    // Confined, it reads the prompt and the dependencies from their directory and nothing else it
    // could write; it keeps the network (it may call a model) unless generator_config.network is false.
    const own = { cwd: request.cwd, readable: [path.dirname(promptFile)], network: request.config.network !== false };
    outcome = await startCommand(request, own, (start) =>
      runCommand({
        command: run,
        cwd: request.cwd,
        // generator_config.env is part of the pair's reference; pairflow's own variables come last.
        env: {
          ...request.env,
          ...env,
          PAIRFLOW_PAIR: request.pairId,
          PAIRFLOW_ATTEMPT: String(request.attempt),
          PAIRFLOW_MODEL: request.model ?? "",
          PAIRFLOW_PROMPT_FILE: promptFile,
        },
        stdin: request.prompt,
        timeoutMs: seconds * 1000,
        signal: request.signal,
        collectStdout: true,
        maxStdoutBytes: request.maxOutputBytes,
        tailBytes: STDERR_KEEP_BYTES,
        onStart: request.onProcess,
        ...start,
      }),
    );
  } catch (err) {
    if (err instanceof CommandStartError) throw new GeneratorError(`command: ${err.message}`);
    throw err;
  }
  const tail = stderrTail(outcome.tail.toString("utf8"));
  const withTail = (reason: string) => new GeneratorError(`command: ${reason}${tail ? `; stderr:\n${tail}` : ""}`);
  if (outcome.limit && request.limits) throw withTail(limitMessage(outcome.limit, request.limits));
  if (outcome.stopped === "overflow")
    throw withTail(`${request.pairId} printed more than the output limit of ${formatBytes(request.maxOutputBytes!)} (max_output_bytes) and was stopped`);
  if (outcome.stopped === "timeout") throw withTail(`timed out after ${seconds}s`);
  if (outcome.stopped === "abort") throw withTail("cancelled");
  if (outcome.code === 0) return { content: outcome.stdout, ...(tail ? { stderr: tail } : {}) };
  if (outcome.code !== null) throw withTail(`exited with code ${outcome.code}`);
  throw withTail(`killed by ${outcome.signal}`);
}

/** The last lines of stderr, short enough to show in a log line or a job summary. */
export function stderrTail(stderr: string): string {
  const tail = stderr.trimEnd().split("\n").slice(-TAIL_LINES).join("\n");
  return tail.length > TAIL_CHARS ? `…${tail.slice(-TAIL_CHARS)}` : tail;
}
