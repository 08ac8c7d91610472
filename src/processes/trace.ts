/**
 * What a command really read: `pairflow run --trace-reads` runs each generator and guard command
 * under strace, and reads back every file it opened for reading and every program it executed.
 *
 * strace follows every process the command starts (`-f`); only open, openat, openat2 and execve
 * are traced, and with `--seccomp-bpf` the kernel stops the command at those calls alone, so a
 * command that makes many other calls runs at nearly full speed. `-y` prints the path each opened
 * descriptor names, absolute and with links resolved, whatever the directory the command was in;
 * `-qq` and `-e signal=none` leave out what is not a call. In the sandbox strace runs inside
 * bubblewrap, which shows the repository at its own path, so the paths are the same as outside.
 *
 * The trace is not the command's to touch: pairflow makes its file in a private directory the
 * sandbox does not show, and hands it to strace as descriptor 3 (`-o /dev/fd/3`); the command's
 * shell closes that descriptor before the command runs (src/processes/children.ts). The file is
 * read back without following a link or waiting on a pipe, and bounded.
 *
 * A file the command opened for writing (or created, or truncated) is its output, not something it
 * read: it is left out even where it was also read.
 */
import { spawnSync } from "node:child_process";
import { closeSync, constants, fstatSync, mkdtempSync, openSync, readSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { CommandLimits, ReadTrace, ReadTracer, Sandbox } from "../model/ports.js";
import { systemProgram } from "./sandbox.js";
import { nameText } from "../model/fileName.js";
import { isInside } from "../config/paths.js";

/** Where strace writes: the descriptor pairflow hands it (see above). */
const TRACE_FD = "/dev/fd/3";

/** The trace of one command is read up to this size (some 400,000 files opened); the rest is not read. */
const MAX_TRACE_BYTES = 64 * 1024 * 1024;

export type TraceProbe = { available: true; tracer: ReadTracer } | { available: false; reason: string };

/**
 * strace's arguments up to the command, writing what it saw to `log`; with `seccomp`, the kernel
 * stops the command only at the traced calls (where it cannot, strace says so on the command's
 * stderr, so the probe tries without).
 */
export function straceArguments(seccomp = true): string[] {
  return ["-f", "-qq", "-y", ...(seccomp ? ["--seccomp-bpf"] : []), "-e", "signal=none", "-e", "trace=?open,openat,?openat2,execve", "-o", TRACE_FD];
}

const probes = new Map<string, TraceProbe>();

/** An absolute path to strace that whoever starts pairflow gives; otherwise the system's own directories are searched. */
export const STRACE_VARIABLE = "PAIRFLOW_STRACE";

/**
 * Whether strace (from the system's own directories or PAIRFLOW_STRACE, never PATH) can trace a
 * command here, confined when `sandbox` is given (a container may forbid ptrace). Asked once per
 * process, strace and sandbox.
 */
export function probeTracer(env: NodeJS.ProcessEnv, sandbox?: Sandbox): TraceProbe {
  const given = env[STRACE_VARIABLE];
  const key = `${given ?? ""}\0${sandbox?.name ?? ""}`;
  let probe = probes.get(key);
  if (!probe) {
    probe = probeNow(given, sandbox);
    probes.set(key, probe);
  }
  return probe;
}

function probeNow(given: string | undefined, sandbox: Sandbox | undefined): TraceProbe {
  const strace = systemProgram("strace", given);
  if (strace === undefined) {
    return {
      available: false,
      reason: given ? `strace is not installed at ${given} (${STRACE_VARIABLE})` : "strace is not installed (on Ubuntu: apt-get install strace)",
    };
  }
  const dir = mkdtempSync(path.join(tmpdir(), "pairflow-trace-"));
  try {
    const confine = sandbox?.confine({ cwd: "/", readable: [], network: false }) ?? [];
    let said = "";
    // The first that traces without a word on stderr, where the command's own output goes.
    for (const seccomp of [true, false]) {
      const log = openSync(path.join(dir, `probe-${seccomp}.log`), "wx", 0o600);
      try {
        const argv = [...confine, strace, ...straceArguments(seccomp), "/bin/sh", "-c", "exec 3>&-; exit 0"];
        const r = spawnSync(argv[0]!, argv.slice(1), { cwd: "/", encoding: "utf8", timeout: 10_000, env: {}, stdio: ["ignore", "pipe", "pipe", log] });
        if (r.error) return { available: false, reason: `strace could not be started: ${r.error.message}` };
        if (r.status === 0 && r.stderr.trim() === "") return { available: true, tracer: { argv: () => [strace, ...straceArguments(seccomp)] } };
        said ||= (r.stderr || r.stdout).trim().split("\n")[0] ?? "";
      } finally {
        closeSync(log);
      }
    }
    return { available: false, reason: `strace cannot trace commands here${said ? ` (${said})` : ""}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** How a run's commands are started: confined or not, traced or not, within limits or not. */
export interface CommandSetup {
  sandbox?: Sandbox;
  trace?: ReadTrace;
  limits?: CommandLimits;
}

/** What runCommand needs to start one command as its setup says (see CommandOptions). */
export interface CommandStart {
  confine?: string[];
  sandboxed: boolean;
  traceLog?: string;
  limits?: CommandLimits;
}

/**
 * Runs a command through `run`, which it hands how to start it: the sandbox's program and
 * arguments, and with a trace, strace's after them and the file strace writes to. Tells the trace
 * what the command read, less the files pairflow itself gave it (`readable`).
 */
export async function startCommand<T>(
  setup: CommandSetup,
  command: { cwd: string; readable: readonly string[]; network: boolean },
  run: (start: CommandStart) => Promise<T>,
): Promise<T> {
  const { sandbox, trace, limits } = setup;
  const confine = sandbox?.confine(limits ? { ...command, tmpBytes: limits.tmpBytes } : command);
  const base = { sandboxed: sandbox !== undefined, ...(limits ? { limits } : {}) };
  if (trace === undefined) return run({ ...base, ...(confine ? { confine } : {}) });
  const dir = mkdtempSync(path.join(tmpdir(), "pairflow-trace-"));
  try {
    const log = path.join(dir, "trace.log");
    const result = await run({ ...base, confine: [...(confine ?? []), ...trace.argv()], traceLog: log });
    trace.read(readsOf(log, command.cwd).filter((file) => !command.readable.some((mine) => file === mine || isInside(mine, file))));
    return result;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The files a trace shows were opened for reading (and not for writing) or executed, absolute, in order, each once. */
export function readsOf(log: string, cwd: string): string[] {
  return parseTrace(readBounded(log), cwd);
}

function readBounded(file: string): string {
  let fd: number;
  try {
    // Never through a link, never waiting on a pipe: only the regular file pairflow made.
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return ""; // the command never started
  }
  try {
    if (!fstatSync(fd).isFile()) return "";
    const chunks: Buffer[] = [];
    let total = 0;
    const buffer = Buffer.alloc(1024 * 1024);
    for (let n; total < MAX_TRACE_BYTES && (n = readSync(fd, buffer, 0, buffer.length, null)) > 0; total += n) chunks.push(Buffer.from(buffer.subarray(0, n)));
    return Buffer.concat(chunks).toString("latin1");
  } finally {
    closeSync(fd);
  }
}

const CALL = /^(\d+)\s+(open|openat|openat2|execve)\((.*)$/;
const RESUMED = /^(\d+)\s+<\.\.\. (?:open|openat|openat2|execve) resumed>(.*)$/;

/**
 * strace's lines, as `-f -y` writes them: `PID  openat(AT_FDCWD</dir>, "path", O_RDONLY) = 3</abs/path>`,
 * a call another process interrupted in two lines (`... <unfinished ...>`, `PID  <... openat resumed>...`).
 * Texts are C strings with octal or hex escapes, decoded as bytes (the log is read as latin1) and then
 * as a file name's text, which keeps a name that is not UTF-8 exactly (src/model/fileName.ts).
 */
export function parseTrace(text: string, cwd: string): string[] {
  const read = new Set<string>();
  const written = new Set<string>();
  const cwds = new Map<string, string>();
  const executed: [string, string][] = [];
  const pending = new Map<string, string>();
  for (const raw of text.split("\n")) {
    let line = raw;
    const resumed = RESUMED.exec(line);
    if (resumed) {
      const start = pending.get(resumed[1]!);
      if (start === undefined) continue;
      pending.delete(resumed[1]!);
      line = start + resumed[2]!;
    }
    const call = CALL.exec(line);
    if (!call) continue;
    const [, pid, name, rest] = call as unknown as [string, string, string, string];
    const unfinished = rest.lastIndexOf(" <unfinished ...>");
    if (unfinished !== -1 && !resumed) {
      pending.set(pid, line.slice(0, line.lastIndexOf(" <unfinished ...>")));
      continue;
    }
    const scan = new Scanner(rest);
    if (name === "execve") {
      const program = scan.string();
      if (program !== undefined && scan.result() === "0") executed.push([pid, program]);
      continue;
    }
    if (name !== "open") {
      const dirfd = scan.descriptor();
      if (dirfd?.at === "AT_FDCWD" && dirfd.path !== undefined) cwds.set(pid, dirfd.path);
      scan.comma();
    }
    if (scan.string() === undefined) continue;
    scan.comma();
    const flags = scan.until(",)");
    const opened = scan.openedPath();
    if (opened === undefined) continue;
    // A directory opened (to list it, or as a base for relative opens) is no file the command read.
    if (opened === "" || flags.includes("O_DIRECTORY")) continue;
    const writes = /O_WRONLY|O_RDWR|O_CREAT|O_TRUNC/.test(flags) || flags.includes("O_ACCMODE");
    (writes ? written : read).add(opened);
  }
  for (const [pid, program] of executed) read.add(path.resolve(cwds.get(pid) ?? cwd, program));
  return [...read].filter((file) => !written.has(file) && !file.endsWith(" (deleted)"));
}

/** Reads strace's argument list from the start. */
class Scanner {
  private i = 0;
  constructor(private readonly text: string) {}

  /** A quoted C string, decoded; undefined when none is here. */
  string(): string | undefined {
    this.space();
    if (this.text[this.i] !== '"') return undefined;
    const bytes: number[] = [];
    for (this.i++; this.i < this.text.length;) {
      const c = this.text[this.i]!;
      if (c === '"') {
        this.i++;
        // `"..."...`: a string cut at strace's limit is no path.
        if (this.text.startsWith("...", this.i)) return undefined;
        return nameText(Buffer.from(bytes));
      }
      this.i = c === "\\" ? unescape(this.text, this.i, bytes) : (bytes.push(c.charCodeAt(0)), this.i + 1);
    }
    return undefined;
  }

  /** A descriptor as -y prints it: `AT_FDCWD</dir>` or `3</path>`. */
  descriptor(): { at: string; path?: string } | undefined {
    this.space();
    const open = this.text.indexOf("<", this.i);
    const comma = this.text.indexOf(",", this.i);
    if (open === -1 || (comma !== -1 && comma < open)) {
      const at = this.until(",");
      return at === "" ? undefined : { at };
    }
    const at = this.text.slice(this.i, open);
    this.i = open;
    return { at, path: this.bracketed() };
  }

  /** `<...>` from here: a path with `<`, `>` and other special bytes escaped. */
  private bracketed(): string | undefined {
    if (this.text[this.i] !== "<") return undefined;
    const bytes: number[] = [];
    for (this.i++; this.i < this.text.length;) {
      const c = this.text[this.i]!;
      if (c === ">") {
        this.i++;
        return nameText(Buffer.from(bytes));
      }
      this.i = c === "\\" ? unescape(this.text, this.i, bytes) : (bytes.push(c.charCodeAt(0)), this.i + 1);
    }
    return undefined;
  }

  comma(): void {
    this.space();
    if (this.text[this.i] === ",") this.i++;
  }

  until(stops: string): string {
    const start = this.i;
    while (this.i < this.text.length && !stops.includes(this.text[this.i]!)) this.i++;
    return this.text.slice(start, this.i).trim();
  }

  /**
   * The value after `) = ` (strace pads short calls, resumed ones above all, with spaces before the
   * `=` to align it): for execve, its number; undefined when the call failed.
   */
  result(): string | undefined {
    const at = [...this.text.matchAll(/\) +=(?= )/g)].pop();
    if (at === undefined) return undefined;
    const value = this.text.slice(at.index + at[0].length).trim();
    return value.startsWith("-1") || value.startsWith("?") ? undefined : value.split(" ")[0];
  }

  /** The path of the descriptor an open returned (`) = 3</abs/path>`, the `=` maybe padded), undefined when it failed. */
  openedPath(): string | undefined {
    const match = /\) += \d+</.exec(this.text.slice(this.i));
    if (!match) return undefined;
    this.i += match.index + match[0].length - 1;
    return this.bracketed();
  }

  private space(): void {
    while (this.text[this.i] === " ") this.i++;
  }
}

const C_ESCAPES: Record<string, number> = { n: 10, t: 9, r: 13, v: 11, f: 12, a: 7, b: 8, "\\": 92, '"': 34, "'": 39 };

/** One escape at text[i] (a backslash) into bytes; returns the index after it. */
function unescape(text: string, i: number, bytes: number[]): number {
  const next = text[i + 1] ?? "";
  const octal = /^[0-7]{1,3}/.exec(text.slice(i + 1, i + 4))?.[0];
  if (octal !== undefined) {
    bytes.push(parseInt(octal, 8) & 0xff);
    return i + 1 + octal.length;
  }
  if (next === "x" && /^[0-9a-fA-F]{2}$/.test(text.slice(i + 2, i + 4))) {
    bytes.push(parseInt(text.slice(i + 2, i + 4), 16));
    return i + 4;
  }
  bytes.push(C_ESCAPES[next] ?? next.charCodeAt(0));
  return i + 2;
}
