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
import { spawn } from "node:child_process";
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import type { ChildGroup, OnProcess } from "../model/ports.js";

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
}

export interface CommandOutcome {
  /** Why pairflow stopped the command, if it did. */
  stopped?: "timeout" | "abort" | "overflow";
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The collected stdout (empty unless collectStdout). */
  stdout: Buffer;
  /** The end of stderr, and of stdout when not collected, in arrival order. */
  tail: Buffer;
}

/** Time between SIGTERM and SIGKILL when stopping a command. */
export const KILL_GRACE_MS = 2000;
/** How long output may keep arriving after the command exits, before the streams are cut. */
const DRAIN_MS = 500;
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
  process.on("exit", killAllGroups);
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
    const child = spawn("/bin/sh", ["-c", GATE + options.command], {
      cwd: options.cwd,
      env: options.env,
      // Its own session and process group: stopping the group stops what the command started.
      detached: true,
      stdio: "pipe",
    });
    if (child.pid === undefined) {
      // spawn failed (no /bin/sh, a bad cwd): the error event says why.
      child.once("error", (err) => reject(new CommandStartError(`could not start /bin/sh in ${options.cwd}: ${err.message}`)));
      return;
    }
    const pid = child.pid;
    const group: ProcessGroup = { pid, startTime: startTimeOf(pid) ?? "" };
    // The descriptors the command writes to; whoever still holds them after a stop is killed.
    const outputs = [1, 2].map((fd) => fdTarget(pid, fd)).filter((t): t is string => t !== undefined);
    register(group);
    let forget: (() => void) | void;
    try {
      forget = options.onStart?.(group);
    } catch (err) {
      signalGroup(pid, "SIGKILL");
      live.delete(pid);
      reject(err as Error);
      return;
    }

    const stdout: Buffer[] = [];
    let stdoutBytes = 0;
    const tail = new Tail(options.tailBytes);
    child.stdout!.on("data", (chunk: Buffer) => {
      if (!options.collectStdout) return tail.push(chunk);
      if (options.maxStdoutBytes !== undefined && stdoutBytes + chunk.length > options.maxStdoutBytes) {
        // Never buffered past the limit: what came so far is dropped, the command is stopped.
        stdout.length = 0;
        stop("overflow");
        child.stdout!.destroy();
        return;
      }
      stdout.push(chunk);
      stdoutBytes += chunk.length;
    });
    child.stderr!.on("data", (chunk: Buffer) => tail.push(chunk));
    // The go, then the command's stdin, in one write. A command may exit without reading its
    // stdin; the EPIPE that follows is no failure.
    child.stdin!.on("error", () => {});
    const stdin = options.stdin ?? "";
    child.stdin!.end(Buffer.concat([GO, typeof stdin === "string" ? Buffer.from(stdin, "utf8") : stdin]));

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
      child.stdout!.destroy();
      child.stderr!.destroy();
      live.delete(pid);
      forget?.();
      resolve({ stopped, code: exited.code, signal: exited.signal, stdout: Buffer.concat(stdout), tail: tail.bytes() });
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
    const timer = setTimeout(() => stop("timeout"), Math.min(options.timeoutMs, MAX_TIMER_MS));
    const onAbort = () => stop("abort");
    if (options.signal.aborted) onAbort();
    else options.signal.addEventListener("abort", onAbort, { once: true });

    child.on("exit", (code, signal) => {
      exited = { code, signal };
      // What the command left running in its group goes with it. Output already in the pipes still
      // arrives; a process that left the group and keeps them open holds neither the run nor the timeout.
      signalGroup(pid, "SIGKILL");
      groupKilled = true;
      drainTimer = setTimeout(finish, DRAIN_MS);
    });
    child.on("close", () => {
      closed = true;
      if (exited === undefined) exited = { code: child.exitCode, signal: child.signalCode };
      finish();
    });
    child.on("error", (err) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(killTimer);
      options.signal.removeEventListener("abort", onAbort);
      signalGroup(pid, "SIGKILL");
      live.delete(pid);
      forget?.();
      reject(new CommandStartError(`could not start /bin/sh in ${options.cwd}: ${err.message}`));
    });
  });
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
