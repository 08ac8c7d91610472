/**
 * The shell commands a run starts (command generators and guards), and what makes sure none of
 * them outlives it.
 *
 * - Each command leads its own process group (and session), so stopping it stops everything it
 *   started in that group.
 * - The group is announced (`onStart`, e.g. written to the run record) before the command does
 *   anything: a small gate in front of the command, in the same shell, waits for pairflow's go on
 *   stdin, and exits without running the command when pairflow died first.
 * - Every live group is in a registry that kills them all when pairflow exits, or dies of a
 *   SIGINT, SIGTERM or SIGHUP that nothing else handles.
 * - A timeout or a cancel holds whatever the command leaves behind: the run never waits for its
 *   output streams to close, and the processes still holding them (a background process that left
 *   the group) are found and killed.
 * - Output is bounded: stdout is collected up to a limit, past which the command is stopped;
 *   what is kept of stderr is a tail of fixed size.
 *
 * Node's child_process does all of this with a few lines of care; libraries such as execa add
 * cleanup on exit but neither the start gate nor the pipe holders, so this stays on it.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { closeSync, openSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import type { ChildGroup, CommandLimits, OnProcess } from "../model/ports.js";
import { commandCgroup, limitFromOutput, rlimitPrefix, type CommandCgroup, type LimitHit } from "./limits.js";

/** A process group as recorded: its leader's pid (= the group id) and the start time of that process (field 22 of /proc/<pid>/stat). */
export type ProcessGroup = ChildGroup;

export interface CommandOptions {
  /** Run with /bin/sh -c in `cwd`. */
  command: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Given on stdin (then closed); without it stdin is empty. */
  stdin?: string | Uint8Array;
  timeoutMs: number;
  signal: AbortSignal;
  /** Keep stdout (up to maxStdoutBytes); otherwise stdout joins stderr in the kept tail. */
  collectStdout: boolean;
  /** Stop the command once stdout exceeds this many bytes (outcome "overflow"). */
  maxStdoutBytes?: number;
  /** How much of the end of stderr (and of stdout when it is not collected) is kept. */
  tailBytes: number;
  /**
   * Told of the command's process group before it runs anything; what it returns is called once
   * the group is gone. If it throws, the command never starts and the error is thrown.
   */
  onStart?: OnProcess;
  /**
   * A program and its arguments that run `/bin/sh -c ...` confined (a sandbox, see ./sandbox.ts):
   * the group's leader is then that program, and stopping the group stops the sandbox.
   */
  confine?: readonly string[];
  /** Whether `confine` is a sandbox (a PID namespace that ends with the command), not a tracer alone. */
  sandboxed?: boolean;
  /** What the command may take (./limits.ts); absent: no limit of pairflow's. */
  limits?: CommandLimits;
  /**
   * A file made for the command's tracer and handed to it as descriptor 3 (strace's `-o
   * /dev/fd/3`); the shell closes that descriptor before the command runs, so the command itself
   * can neither write to the file nor reach it by name.
   */
  traceLog?: string;
}

export interface CommandOutcome {
  /** Why pairflow stopped the command, if it did. */
  stopped?: "timeout" | "abort" | "overflow";
  /** The limit that stopped it (the kernel's word where a cgroup held it, else what it printed). */
  limit?: LimitHit;
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The collected stdout (empty unless collectStdout). */
  stdout: Buffer;
  /** The end of stderr, and of stdout when not collected, in arrival order. */
  tail: Buffer;
}

/** Time between SIGTERM and SIGKILL when stopping a command. */
export const KILL_GRACE_MS = 2000;
/** How long after the command exits its output streams may stay open before whatever holds them is killed. */
const DRAIN_MS = 500;
/** How long after that the run waits for them to close before it goes on without the rest of the output. */
const GIVE_UP_MS = 60_000;
/** Node timers overflow (and fire at once) beyond this. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** Exit status of the start gate when pairflow went away before saying go. */
const GATE_CLOSED = 125;
/**
 * Put in front of the command, on its first line, in the same shell: waits for one line on stdin
 * (pairflow's go, written before the command's own stdin), then the command runs. If pairflow died
 * before writing it, the read sees end of file and the command never runs. The shell's `read`
 * takes a pipe one byte at a time, so the command's stdin starts right after the go.
 *
 * On the same line as the command, not a line of its own, so that the shell's messages name the
 * command's lines as the user wrote them; and in the same shell rather than a second one started
 * by `exec`, which cost an exec of /bin/sh per command (a shell that cannot parse the command's
 * first line exits before the gate, so nothing runs then either).
 */
const GATE = `IFS= read -r _ || exit ${GATE_CLOSED}; `;
/**
 * A sandbox's gate first says it is there, with one NUL byte on stderr, and pairflow writes the go
 * only then. The sandbox ends with pairflow through bubblewrap's --die-with-parent, which each of
 * its two processes arms for itself while it starts: a go written at once, into the pipe, would let
 * a sandbox whose start pairflow did not outlive run its command with nothing left to end it. Held
 * back, the go is never there for such a sandbox: its gate reads end of file, and it ends.
 */
const SANDBOX_GATE = `printf '\\000' >&2; ${GATE}`;
/** Closes the tracer's descriptor (CommandOptions.traceLog) before anything else runs. */
const CLOSE_TRACE_LOG = "exec 3>&-; ";
/** The variable that marks an unconfined command's processes, to find those that left its group. */
export const COMMAND_ID_VARIABLE = "PAIRFLOW_COMMAND_ID";
/** Marks are this process's random prefix and a count: unique without asking for randomness per command. */
const MARK_PREFIX = randomBytes(8).toString("hex");
let marked = 0;
/** Written to stdin before the command's own stdin: the gate's go. */
const GO = Buffer.from("go\n");

export class CommandStartError extends Error {
  override name = "CommandStartError";
}

// ---------------------------------------------------------------------------------------------
// The registry of live groups

const live = new Map<number, ProcessGroup>();
let installed = false;

/** Process groups this process started that have not been seen to end. */
export function liveGroups(): ProcessGroup[] {
  return [...live.values()];
}

/** Kills every live group at once (SIGKILL): pairflow is going away. */
export function killAllGroups(): void {
  for (const group of live.values()) signalGroup(group.pid, "SIGKILL");
  live.clear();
}

function register(group: ProcessGroup): void {
  live.set(group.pid, group);
  if (installed) return;
  installed = true;
  process.on("exit", () => {
    killAllGroups();
    sweepMarked();
  });
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    const onSignal = () => {
      // Someone else handles it (the run's graceful stop): their cancel stops the groups.
      if (process.listenerCount(signal) > 1) return;
      // Nobody does: the default would end pairflow at once and leave the groups running.
      killAllGroups();
      process.off(signal, onSignal);
      process.kill(process.pid, signal);
    };
    process.on(signal, onSignal);
  }
}

// ---------------------------------------------------------------------------------------------
// Running one command

export function runCommand(options: CommandOptions): Promise<CommandOutcome> {
  return new Promise((resolve, reject) => {
    let pid = 0;
    let outputs: string[] = [];
    /** Set once startShell returns; its events come later, except `started` for a shell started here. */
    const spawned: { shell?: Shell } = {};
    let timer: NodeJS.Timeout | undefined;

    const stdout: Buffer[] = [];
    let stdoutBytes = 0;
    const tail = new Tail(options.tailBytes);
    let stopped: CommandOutcome["stopped"];
    let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let killTimer: NodeJS.Timeout | undefined;
    let drainTimer: NodeJS.Timeout | undefined;
    let settled = false;
    let closed = false;
    /** The group was killed once the shell exited: nothing can have joined it since. */
    let groupKilled = false;

    const finish = () => {
      if (settled || exited === undefined) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(killTimer);
      clearTimeout(drainTimer);
      options.signal.removeEventListener("abort", onAbort);
      // The command is over: whatever it left in its group, and whatever still holds its output, goes.
      if (!groupKilled) signalGroup(pid, "SIGKILL");
      if (!closed) killHolders(outputs);
      spawned.shell?.drop(true);
      live.delete(pid);
      const kept = tail.bytes();
      const failed = exited.code !== 0 || stopped !== undefined;
      const limit = cgroup?.hit() ?? (failed && options.limits ? limitFromOutput(kept.toString("utf8"), options.sandboxed === true) : undefined);
      // Whatever it started that hid from its group: in its cgroup, or marked in its environment.
      if (cgroup) cgroup.dispose();
      else if (mark !== undefined) leftBehind(mark);
      resolve({ stopped, ...(limit ? { limit } : {}), code: exited.code, signal: exited.signal, stdout: Buffer.concat(stdout), tail: kept });
    };
    const stop = (why: NonNullable<CommandOutcome["stopped"]>) => {
      if (stopped !== undefined || settled) return;
      stopped = why;
      signalGroup(pid, "SIGTERM");
      killTimer = setTimeout(() => {
        signalGroup(pid, "SIGKILL");
        killHolders(outputs);
        // The shell itself is gone or going; a process that left the group may hold the pipes: stop waiting.
        if (exited === undefined) exited = { code: null, signal: "SIGKILL" };
        finish();
      }, KILL_GRACE_MS);
    };
    const onAbort = () => stop("abort");

    // Unconfined, what leaves the command's group is found by this mark; confined, the sandbox's
    // PID namespace ends with the command.
    const mark = options.sandboxed ? undefined : `${MARK_PREFIX}${++marked}`;
    const env = mark === undefined ? options.env : { ...options.env, [COMMAND_ID_VARIABLE]: mark };
    const awaitReady = options.sandboxed === true;
    /** The go and stdin, while a sandbox has not yet said it is there. */
    let held: Buffer | undefined;
    const script =
      (options.traceLog !== undefined ? CLOSE_TRACE_LOG : "") +
      (options.limits ? rlimitPrefix(options.limits) : "") +
      (awaitReady ? SANDBOX_GATE : GATE) +
      options.command;
    const cgroup: CommandCgroup | undefined = options.limits ? commandCgroup(options.limits) : undefined;
    spawned.shell = startShell(shellArgv(script, options.confine, cgroup), options.cwd, env, options.traceLog, {
      started(startedPid, startTime) {
        pid = startedPid;
        const group: ProcessGroup = { pid, startTime };
        // The descriptors the command writes to; whoever still holds them after a stop is killed.
        outputs = [1, 2].map((fd) => fdTarget(pid, fd)).filter((t): t is string => t !== undefined);
        register(group);
        try {
          options.onStart?.(group);
        } catch (err) {
          signalGroup(pid, "SIGKILL");
          live.delete(pid);
          settled = true;
          reject(err as Error);
          return null;
        }
        timer = setTimeout(() => stop("timeout"), Math.min(options.timeoutMs, MAX_TIMER_MS));
        if (options.signal.aborted) onAbort();
        else options.signal.addEventListener("abort", onAbort, { once: true });
        // The go, then the command's stdin, in one write.
        const stdin = options.stdin ?? "";
        const input = Buffer.concat([GO, typeof stdin === "string" ? Buffer.from(stdin, "utf8") : stdin]);
        if (!awaitReady) return input;
        held = input;
        return undefined;
      },
      stdout(chunk) {
        if (settled) return;
        if (!options.collectStdout) return tail.push(chunk);
        if (options.maxStdoutBytes !== undefined && stdoutBytes + chunk.length > options.maxStdoutBytes) {
          // Never buffered past the limit: what came so far is dropped, the command is stopped.
          stdout.length = 0;
          stop("overflow");
          spawned.shell?.drop(false);
          return;
        }
        stdout.push(chunk);
        stdoutBytes += chunk.length;
      },
      stderr(chunk) {
        if (settled) return;
        if (held !== undefined) {
          // The sandbox's first byte: there, and the go follows. Anything else came before the gate
          // (the shell could not parse the command, bubblewrap could not start): stdin just ends.
          const ready = chunk[0] === 0;
          spawned.shell?.go(ready ? held : Buffer.alloc(0));
          held = undefined;
          if (ready) chunk = chunk.subarray(1);
        }
        if (chunk.length > 0) tail.push(chunk);
      },
      exit(code, signal) {
        if (settled) return;
        exited = { code, signal };
        // What the command left running in its group goes with it. Output already in the pipes still
        // arrives, however long a busy machine takes to deliver it: the run waits for the pipes to
        // close. A process that left the group and keeps them open is found and killed once they
        // have been quiet a while, so it holds neither the run nor the timeout; after that only an
        // unkillable holder (no /proc to find it by) makes the run give up on the rest.
        signalGroup(pid, "SIGKILL");
        groupKilled = true;
        drainTimer = setTimeout(() => {
          killHolders(outputs);
          drainTimer = setTimeout(finish, GIVE_UP_MS);
        }, DRAIN_MS);
      },
      close(code, signal) {
        closed = true;
        if (exited === undefined) exited = { code, signal };
        finish();
      },
      error(err) {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        clearTimeout(killTimer);
        clearTimeout(drainTimer);
        options.signal.removeEventListener("abort", onAbort);
        if (pid !== 0) {
          signalGroup(pid, "SIGKILL");
          live.delete(pid);
        }
        cgroup?.dispose();
        reject(new CommandStartError(pid === 0 ? `could not start /bin/sh in ${options.cwd}: ${err.message}` : `${err.message}; the command was stopped`));
      },
    });
  });
}

/**
 * Ends the process that starts commands, once none is running, and waits for it: call when a run
 * is over. Commands started later start it again.
 */
export function stopLauncher(): Promise<void> {
  sweepMarked();
  return Launcher.stop();
}

// ---------------------------------------------------------------------------------------------
// Starting the shell: from a small launcher process, or from this one

/** What runCommand hears of a shell it asked for, in this order: started, then the rest. */
interface ShellEvents {
  /**
   * The shell runs, held by the gate: the stdin to give it (the go first), null to give none (it
   * was killed), or undefined to give it later, through Shell.go.
   */
  started(pid: number, startTime: string): Buffer | null | undefined;
  stdout(chunk: Buffer): void;
  stderr(chunk: Buffer): void;
  exit(code: number | null, signal: NodeJS.Signals | null): void;
  /** The shell exited and its output streams closed. */
  close(code: number | null, signal: NodeJS.Signals | null): void;
  /** It could not be started, or what started it is gone. */
  error(err: Error): void;
}

interface Shell {
  /** Stops reading its stdout, and with `all` its stderr too. */
  drop(all: boolean): void;
  /** Gives it its stdin, the go first, when `started` held it back. */
  go(input: Buffer): void;
}

/**
 * Starts `/bin/sh -c script` (argv: behind what confines it) in its own session and process group (stopping the group stops what
 * the command started), with stdin, stdout and stderr on pipes.
 *
 * Starting a process forks the one that starts it, and a fork costs in proportion to the memory
 * of the process forked: pairflow holds a workflow, its plan and their strings, several times the
 * memory of a bare Node process, and it forked once per command on the thread that does all of its
 * other work. So a small launcher process (started once, when a process has started a few commands) does the forking,
 * and relays each shell's output and ending as messages; pairflow still records, signals and kills
 * the groups itself. Where the launcher cannot run, the shell is started here.
 */
function startShell(argv: readonly string[], cwd: string, env: NodeJS.ProcessEnv, traceLog: string | undefined, events: ShellEvents): Shell {
  const launcher = ++shellsStarted > LAUNCH_AFTER ? Launcher.get() : undefined;
  return launcher ? launcher.start(argv, cwd, env, traceLog, events) : startHere(argv, cwd, env, traceLog, events);
}

/**
 * `/bin/sh -c script`, behind the program that confines it when there is one, and with a cgroup
 * joined first: whatever the command, its sandbox or its tracer start is born there, and the join
 * (which takes the kernel a lock over every process's forks) costs the started process, not
 * pairflow's one thread. Unconfined, the command's own shell joins, with builtins, before anything
 * else; a sandbox or a tracer is started by a shell that joins and then becomes it.
 */
function shellArgv(script: string, confine: readonly string[] | undefined, cgroup: CommandCgroup | undefined): string[] {
  if (cgroup === undefined) return [...(confine ?? []), "/bin/sh", "-c", script];
  // Silent whatever fails: a sandbox's first byte on stderr must be its own (see SANDBOX_GATE).
  const join = `{ ${cgroup.procs.map((procs) => `echo $$ > '${procs.replaceAll("'", `'\\''`)}'`).join(" && ")}; } 2>/dev/null; `;
  if (confine === undefined) return ["/bin/sh", "-c", join + script];
  return ["/bin/sh", "-c", `${join}exec "$@"`, "pairflow-cgroup", ...confine, "/bin/sh", "-c", script];
}

/**
 * The first commands of a process are forked from it: the launcher costs the start of a Node
 * process (60 ms of CPU, 100 ms of wall time under load, on the path of the command that waits for
 * it), which a run of a few dozen commands, such as an incremental run after one change or one
 * shard of a fan-out, would not win back. A fork from pairflow costs it 3.7 ms at 50 MB of memory
 * and 6.2 ms at 150 MB (measured on a busy 2-core machine), so the launcher pays from the run of a
 * large workflow on.
 */
export const LAUNCH_AFTER = 32;
let shellsStarted = 0;

/**
 * Starts the launcher now, for a run that will start more than LAUNCH_AFTER commands: its start
 * (its own process's time) overlaps what pairflow does before the first command, instead of
 * holding up a command later, and none of the run's commands is forked from pairflow.
 */
export function prepareLauncher(commands: number): void {
  if (commands <= LAUNCH_AFTER || Launcher.get() === undefined) return;
  shellsStarted = Math.max(shellsStarted, LAUNCH_AFTER);
}

function startHere(argv: readonly string[], cwd: string, env: NodeJS.ProcessEnv, traceLog: string | undefined, events: ShellEvents): Shell {
  let log: number | undefined;
  let child: ChildProcess;
  try {
    // Made here, never there before: no link followed, no file another process made.
    if (traceLog !== undefined) log = openSync(traceLog, "wx", 0o600);
    child = spawn(argv[0]!, argv.slice(1), { cwd, env, detached: true, stdio: log === undefined ? "pipe" : ["pipe", "pipe", "pipe", log] });
  } catch (err) {
    queueMicrotask(() => events.error(err as Error));
    return { drop() {}, go() {} };
  } finally {
    if (log !== undefined) closeSync(log);
  }
  if (child.pid === undefined) {
    // spawn failed (no /bin/sh, a bad cwd): the error event says why.
    child.once("error", (err) => events.error(err));
    return { drop() {}, go() {} };
  }
  const drop = (all: boolean) => {
    child.stdout!.destroy();
    if (all) child.stderr!.destroy();
  };
  const input = events.started(child.pid, startTimeOf(child.pid) ?? "");
  if (input === null) {
    child.stdin!.destroy();
    drop(true);
    return { drop() {}, go() {} };
  }
  child.stdout!.on("data", (chunk: Buffer) => events.stdout(chunk));
  child.stderr!.on("data", (chunk: Buffer) => events.stderr(chunk));
  // A command may exit without reading its stdin; the EPIPE that follows is no failure.
  child.stdin!.on("error", () => {});
  const go = (stdin: Buffer) => child.stdin!.end(stdin);
  if (input !== undefined) go(input);
  child.on("exit", (code, signal) => events.exit(code, signal));
  child.on("close", () => events.close(child.exitCode, child.signalCode));
  child.on("error", (err) => events.error(err));
  return { drop, go };
}

/**
 * The launcher's program: a plain script for `node -e`, CommonJS, needing nothing installed.
 * Messages in: spawn {id, argv, cwd, env, log} (env: {whole} the first time, then {set, unset}, what
 * differs from that first one), go {id, stdin}, drop {id, all}. Messages out: started
 * {id, pid, startTime} (read before the shell can have been reaped), out/err {id, d}, exit {id,
 * code, signal}, close {id, code, signal}, error {id, message}. It ignores the terminal's signals
 * (pairflow decides what a Ctrl-C stops) and ends when pairflow does. A shell it never got the go
 * for sees its stdin close then, and exits without running its command.
 */
const LAUNCHER = String.raw`"use strict";
const { spawn } = require("node:child_process");
const { closeSync, openSync, readFileSync } = require("node:fs");
const shells = new Map();
let base = {};
const envOf = (e) => {
  if (e.whole) return (base = e.whole);
  const env = { ...base, ...e.set };
  for (const k of e.unset) delete env[k];
  return env;
};
for (const s of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(s, () => {});
process.on("disconnect", () => process.exit(0));
const send = (m) => { if (process.connected) process.send(m); };
const startTime = (pid) => {
  try {
    const t = readFileSync("/proc/" + pid + "/stat", "utf8");
    return t.slice(t.lastIndexOf(")") + 2).split(" ")[19] || "";
  } catch { return ""; }
};
process.on("message", (m) => {
  const id = m.id;
  if (m.t === "spawn") {
    let child, log;
    try {
      if (m.log !== undefined) log = openSync(m.log, "wx", 0o600);
      child = spawn(m.argv[0], m.argv.slice(1), { cwd: m.cwd, env: envOf(m.env), detached: true, stdio: log === undefined ? "pipe" : ["pipe", "pipe", "pipe", log] });
    } catch (err) { return send({ t: "error", id, message: String(err && err.message) }); }
    finally { if (log !== undefined) closeSync(log); }
    if (child.pid === undefined) return child.once("error", (err) => send({ t: "error", id, message: err.message }));
    shells.set(id, child);
    child.stdin.on("error", () => {});
    child.stdout.on("data", (d) => send({ t: "out", id, d }));
    child.stderr.on("data", (d) => send({ t: "err", id, d }));
    child.on("error", (err) => send({ t: "error", id, message: err.message }));
    child.on("exit", (code, signal) => send({ t: "exit", id, code, signal }));
    child.on("close", () => { shells.delete(id); send({ t: "close", id, code: child.exitCode, signal: child.signalCode }); });
    send({ t: "started", id, pid: child.pid, startTime: startTime(child.pid) });
  } else if (m.t === "go") {
    shells.get(id)?.stdin.end(m.stdin);
  } else if (m.t === "drop") {
    const child = shells.get(id);
    if (!child) return;
    child.stdout.destroy();
    if (m.all) { child.stdin.destroy(); child.stderr.destroy(); }
  }
});
`;

type LauncherMessage =
  | { t: "started"; id: number; pid: number; startTime: string }
  | { t: "out" | "err"; id: number; d: Uint8Array }
  | { t: "exit" | "close"; id: number; code: number | null; signal: NodeJS.Signals | null }
  | { t: "error"; id: number; message: string };

class Launcher {
  private static current: Launcher | undefined;
  /** The launcher could not be started once: shells are started here from then on. */
  private static unavailable = false;

  private static hooked = false;

  private readonly shells = new Map<number, ShellEvents>();
  private next = 1;
  /** The first environment it was sent, whole: the next ones are sent as what differs from it. */
  private base: NodeJS.ProcessEnv | undefined;

  private constructor(readonly process: ChildProcess) {}

  /**
   * Ends the launcher, if no shell of its is out, and waits until it is gone, so that pairflow
   * reaps it rather than leaving it to whatever adopts orphans. The next command starts a new one.
   */
  static async stop(): Promise<void> {
    const launcher = Launcher.current;
    if (!launcher || launcher.shells.size > 0) return;
    Launcher.current = undefined;
    const child = launcher.process;
    if (child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    child.ref();
    child.disconnect();
    const timer = setTimeout(() => child.kill("SIGKILL"), 2000);
    await gone;
    clearTimeout(timer);
  }

  static get(): Launcher | undefined {
    if (Launcher.current || Launcher.unavailable) return Launcher.current;
    let child: ChildProcess;
    try {
      // Nothing of the environment: NODE_OPTIONS and the like are the user's commands' business.
      child = spawn(process.execPath, ["-e", LAUNCHER], { env: {}, stdio: ["ignore", "ignore", "inherit", "ipc"], serialization: "advanced" });
    } catch {
      child = undefined as unknown as ChildProcess;
    }
    if (child?.pid === undefined) {
      child?.once("error", () => {});
      Launcher.unavailable = true;
      return undefined;
    }
    const launcher = new Launcher(child);
    Launcher.current = launcher;
    if (!Launcher.hooked) {
      Launcher.hooked = true;
      // It would see pairflow's end by itself a moment later; nothing of pairflow outlives it.
      process.on("exit", () => Launcher.current?.process.kill("SIGKILL"));
    }
    child.on("message", (m: LauncherMessage) => launcher.receive(m));
    child.on("error", () => launcher.lost());
    child.on("exit", () => launcher.lost());
    launcher.idle();
    return launcher;
  }

  start(argv: readonly string[], cwd: string, env: NodeJS.ProcessEnv, log: string | undefined, events: ShellEvents): Shell {
    const id = this.next++;
    if (this.shells.size === 0) this.busy();
    this.shells.set(id, events);
    this.send({ t: "spawn", id, argv, cwd, env: this.envMessage(env), log });
    return {
      drop: (all) => this.shells.has(id) && this.send({ t: "drop", id, all }),
      go: (stdin) => this.shells.has(id) && this.send({ t: "go", id, stdin }),
    };
  }

  /**
   * A command's environment, told as what differs from the first one sent: the commands of a run
   * share all but a few variables, and the whole of a CI job's environment was most of every
   * message. Null-prototype, so that a variable named `__proto__` is a key like any other.
   */
  private envMessage(env: NodeJS.ProcessEnv): object {
    const base = this.base;
    if (base === undefined) {
      this.base = env;
      return { whole: env };
    }
    const set: NodeJS.ProcessEnv = Object.create(null);
    for (const key of Object.keys(env)) if (env[key] !== base[key]) set[key] = env[key];
    const unset = Object.keys(base).filter((key) => !Object.hasOwn(env, key));
    return { set, unset };
  }

  private receive(m: LauncherMessage): void {
    const events = this.shells.get(m.id);
    if (!events) return;
    switch (m.t) {
      case "started": {
        const input = events.started(m.pid, m.startTime);
        if (input !== undefined) this.send(input === null ? { t: "drop", id: m.id, all: true } : { t: "go", id: m.id, stdin: input });
        return;
      }
      case "out":
        return events.stdout(Buffer.from(m.d.buffer, m.d.byteOffset, m.d.byteLength));
      case "err":
        return events.stderr(Buffer.from(m.d.buffer, m.d.byteOffset, m.d.byteLength));
      case "exit":
        return events.exit(m.code, m.signal);
      case "close":
        this.forget(m.id);
        return events.close(m.code, m.signal);
      case "error":
        this.forget(m.id);
        return events.error(new Error(m.message));
    }
  }

  private send(message: object): void {
    try {
      this.process.send(message);
    } catch {
      // The channel is closed: the launcher's exit says so to every shell.
    }
  }

  private forget(id: number): void {
    this.shells.delete(id);
    if (this.shells.size === 0) this.idle();
  }

  /** Gone (it crashed, or was killed): every shell it had is lost, the next is started by a new one. */
  private lost(): void {
    if (Launcher.current === this) Launcher.current = undefined;
    const shells = [...this.shells.values()];
    this.shells.clear();
    for (const events of shells) events.error(new Error("the process that starts pairflow's commands ended"));
  }

  /** Keeps pairflow running while a shell is out: its messages are all there is to wait for. */
  private busy(): void {
    this.process.ref();
    this.process.channel?.ref();
  }

  /** Lets pairflow end with no shell out; the launcher then ends with it. */
  private idle(): void {
    this.process.unref();
    this.process.channel?.unref();
  }
}

/** The last `keep` bytes or so of a stream, in arrival order. */
class Tail {
  private chunks: Buffer[] = [];
  private size = 0;
  constructor(private readonly keep: number) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.chunks.length > 1 && this.size - this.chunks[0]!.length >= this.keep) this.size -= this.chunks.shift()!.length;
  }

  bytes(): Buffer {
    const all = Buffer.concat(this.chunks);
    return all.length > this.keep ? all.subarray(all.length - this.keep) : all;
  }
}

// ---------------------------------------------------------------------------------------------
// Processes and groups by their /proc entries

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}

interface Stat {
  state: string;
  pgrp: number;
  session: number;
  startTime: string;
}

function statOf(pid: number): Stat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // "pid (comm) state ppid pgrp session ..."; comm may hold spaces and parentheses.
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  // fields[0] is field 3 (state), so field n is fields[n - 3].
  return { state: fields[0]!, pgrp: Number(fields[2]), session: Number(fields[3]), startTime: fields[19]! };
}

/** The start time of a process, or undefined when it does not run (or there is no /proc). */
export function startTimeOf(pid: number): string | undefined {
  return statOf(pid)?.startTime;
}

function fdTarget(pid: number, fd: number): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/fd/${fd}`);
  } catch {
    return undefined;
  }
}

function processIds(): number[] {
  try {
    return readdirSync("/proc")
      .filter((name) => /^\d+$/.test(name))
      .map(Number);
  } catch {
    return [];
  }
}

/**
 * The marks of unconfined commands that ended (without a cgroup) since the last sweep. Finding what
 * carries a mark reads every process's environment, about as long as starting a command, so one
 * sweep serves the commands that ended within SWEEP_MS of each other, and the run's end sweeps again.
 */
const marks = new Set<string>();
let sweep: NodeJS.Timeout | undefined;
const SWEEP_MS = 50;

function leftBehind(mark: string): void {
  marks.add(mark);
  if (sweep === undefined) {
    sweep = setTimeout(sweepMarked, SWEEP_MS);
    sweep.unref();
  }
}

/** Kills the processes whose environment carries the mark of a command that ended (they left its group: setsid, a daemon). */
function sweepMarked(): void {
  clearTimeout(sweep);
  sweep = undefined;
  if (marks.size === 0) return;
  const needles = [...marks].map((mark) => Buffer.from(`${COMMAND_ID_VARIABLE}=${mark}\0`));
  marks.clear();
  for (const pid of processIds()) {
    if (pid === process.pid) continue;
    let environ: Buffer;
    try {
      environ = readFileSync(`/proc/${pid}/environ`);
    } catch {
      continue;
    }
    if (needles.some((needle) => environ.includes(needle))) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // gone already
      }
    }
  }
}

/** Kills the processes that hold any of these descriptors (e.g. "pipe:[123]"), wherever they went. */
function killHolders(targets: string[]): void {
  if (targets.length === 0) return;
  for (const pid of processIds()) {
    if (pid === process.pid) continue;
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    if (fds.some((fd) => targets.includes(fdTarget(pid, Number(fd)) ?? ""))) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // gone already
      }
    }
  }
}

/**
 * Kills what is left of groups recorded by a process that died (a killed pairflow), and waits
 * until they are gone. A group is the one recorded only if its leader still has the recorded
 * start time or, with the leader gone, for the members of its session that started after it: a
 * pid is never taken for someone else's. Returns the groups in which something was killed.
 */
export async function killRecordedGroups(groups: readonly ProcessGroup[]): Promise<ProcessGroup[]> {
  const known = groups.filter((g) => g.startTime !== "" && /^\d+$/.test(g.startTime) && Number.isInteger(g.pid) && g.pid > 1);
  if (known.length === 0) return [];
  const members = (): Map<ProcessGroup, number[]> => {
    const found = new Map<ProcessGroup, number[]>();
    const leaderless: ProcessGroup[] = [];
    for (const group of known) {
      const leader = statOf(group.pid);
      if (leader && leader.state !== "Z" && leader.startTime === group.startTime) found.set(group, [group.pid]);
      else if (!leader || leader.startTime === group.startTime) leaderless.push(group); // gone, or a zombie
      // else: the pid is someone else's now
    }
    if (leaderless.length > 0) {
      for (const pid of processIds()) {
        const s = statOf(pid);
        if (s === undefined || s.state === "Z") continue;
        const group = leaderless.find((g) => s.pgrp === g.pid && s.session === g.pid && BigInt(s.startTime) >= BigInt(g.startTime));
        if (group) found.set(group, [...(found.get(group) ?? []), pid]);
      }
    }
    return found;
  };
  let left = members();
  const killed = [...left.keys()];
  for (let round = 0; left.size > 0 && round < 100; round++) {
    for (const [group, pids] of left) {
      if (pids.includes(group.pid)) signalGroup(group.pid, "SIGKILL");
      for (const pid of pids) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // gone already
        }
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
    left = members();
  }
  return killed;
}
