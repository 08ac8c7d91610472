/**
 * What one command may take: processes, memory, the size of its /tmp, and wall time, and what
 * makes sure nothing it started outlives it.
 *
 * - Where pairflow may make a cgroup (root on cgroup v1, or on cgroup v2 where the controllers are
 *   delegated to it), each command gets one of its own: `pids.max` bounds its processes, the memory
 *   limit the memory of all of them together, and the kernel's counts say afterwards which limit
 *   stopped it. When the command ends, everything left in its cgroup is killed, however it hid
 *   (`setsid`, a double fork, descriptors redirected).
 * - Otherwise, the shell sets rlimits before the command runs: RLIMIT_NPROC (in the sandbox's user
 *   namespace it counts the sandbox's processes only; unconfined it counts all of the user's, and
 *   root is exempt) and RLIMIT_DATA (per process). Which limit stopped a command is then read from
 *   what it printed. Processes that left the command's process group unconfined are found by a
 *   mark in their environment (PAIRFLOW_COMMAND_ID) and killed; one that clears its environment
 *   can survive. Confined, the sandbox's PID namespace ends with the command.
 * - /tmp's size is the sandbox's (src/processes/sandbox.ts); wall time is the command's timeout.
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { CommandLimits } from "../model/ports.js";
import { formatBytes } from "../model/text.js";

/** Defaults that fit a GitHub-hosted runner (2-4 cores, 7-16 GB): many commands at once stay within it. */
export const DEFAULT_LIMITS: CommandLimits = {
  processes: 2048,
  memoryBytes: 4 * 2 ** 30,
  tmpBytes: 1 * 2 ** 30,
  timeSeconds: 3600,
};

/** Which limit stopped a command. */
export type LimitHit = "processes" | "memory" | "tmp";

/** The names of the limits, as `--limits` and the action's `limits` input take them. */
export const LIMIT_NAMES = ["processes", "memory", "tmp", "time"] as const;

/**
 * `processes=512,memory=2g,tmp=512m,time=600` (any of them, comma- or space-separated) over the
 * defaults; sizes take k, m, g or t (powers of 1024), time is in seconds. A message saying what
 * is wrong otherwise.
 */
export function parseLimits(text: string, base: CommandLimits = DEFAULT_LIMITS): CommandLimits | string {
  const limits = { ...base };
  for (const item of text.split(/[\s,]+/).filter((part) => part !== "")) {
    const [name, value = ""] = item.split("=", 2) as [string, string?];
    const bytes = name === "memory" || name === "tmp";
    const parsed = parseAmount(value, bytes);
    if (!(LIMIT_NAMES as readonly string[]).includes(name)) return `"${name}" is not a limit; use ${LIMIT_NAMES.map((n) => `${n}=`).join(", ")}`;
    if (parsed === undefined)
      return `${name}=${value} is not ${bytes ? "a size such as 512m or 4g" : name === "time" ? "a number of seconds" : "a whole number"} above 0`;
    if (name === "processes") limits.processes = parsed;
    else if (name === "memory") limits.memoryBytes = parsed;
    else if (name === "tmp") limits.tmpBytes = parsed;
    else limits.timeSeconds = parsed;
  }
  return limits;
}

/** The limits as `--limits` takes them: `processes=2048,memory=4g,tmp=1g,time=3600`. */
export function describeLimits(limits: CommandLimits): string {
  const size = (bytes: number) => (bytes % 2 ** 30 === 0 ? `${bytes / 2 ** 30}g` : bytes % 2 ** 20 === 0 ? `${bytes / 2 ** 20}m` : String(bytes));
  return `processes=${limits.processes},memory=${size(limits.memoryBytes)},tmp=${size(limits.tmpBytes)},time=${limits.timeSeconds}`;
}

/** "512", "4g", "512m", "1.5G", "100k" (byte units only when `bytes`), as a number; undefined when it is none. */
function parseAmount(text: string, bytes: boolean): number | undefined {
  const m = /^(\d+(?:\.\d+)?)([kmgt]i?b?)?$/i.exec(text.trim());
  if (!m) return undefined;
  const unit = m[2]?.toLowerCase()[0];
  if (unit !== undefined && !bytes) return undefined;
  const scale = unit === undefined ? 1 : 1024 ** ("kmgt".indexOf(unit) + 1);
  const value = Math.floor(Number(m[1]) * scale);
  return Number.isSafeInteger(value) && value > 0 ? value : undefined;
}

/** The line a pair fails with when a limit stopped its command. */
export function limitMessage(hit: LimitHit, limits: CommandLimits): string {
  switch (hit) {
    case "processes":
      return `stopped by the process limit (${limits.processes} processes at once; --limits processes=N)`;
    case "memory":
      return `stopped by the memory limit (${formatBytes(limits.memoryBytes)}; --limits memory=SIZE)`;
    case "tmp":
      return `stopped by the size limit of its /tmp and home directory (${formatBytes(limits.tmpBytes)} each; --limits tmp=SIZE)`;
  }
}

/**
 * The shell's rlimits, put before the command in its own shell: processes, and memory per process
 * (in KiB), each where the shell can set it.
 */
export function rlimitPrefix(limits: CommandLimits): string {
  return `ulimit -p ${limits.processes} 2>/dev/null; ulimit -d ${Math.ceil(limits.memoryBytes / 1024)} 2>/dev/null; `;
}

/** Which limit a command that failed seems to have hit, by what it printed (no cgroup to ask). */
export function limitFromOutput(output: string, sandboxed: boolean): LimitHit | undefined {
  if (
    /Cannot fork|fork: (retry: )?Resource temporarily unavailable|fork failed: resource temporarily unavailable|EAGAIN.*(spawn|fork)|(spawn|fork).*EAGAIN/i.test(
      output,
    )
  )
    return "processes";
  if (/out of memory|Cannot allocate memory|ENOMEM|MemoryError|std::bad_alloc|allocation failed/i.test(output)) return "memory";
  if (sandboxed && /No space left on device|ENOSPC/i.test(output)) return "tmp";
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Cgroups

/** A command's cgroup: its processes go in before it runs; afterwards, what stopped it and what is left. */
export interface CommandCgroup {
  /** Its `cgroup.procs` files: a process that writes its pid to each (`echo $$`) joins it. */
  readonly procs: readonly string[];
  /** The limit the kernel says the command hit, if any. */
  hit(): LimitHit | undefined;
  /** Kills whatever is left in it and removes it. */
  dispose(): void;
}

interface Hierarchy {
  version: 1 | 2;
  /** Directories: v1 one per controller (pids, memory), v2 one. */
  dirs: string[];
}

let hierarchy: Hierarchy | null | undefined;
let made = 0;
const runTag = `pairflow-${process.pid}-${randomBytes(4).toString("hex")}`;

/**
 * Cgroups a command has finished with, by their limits, to be used again: making a cgroup and
 * removing it costs the kernel more than moving a process in (a v1 memory cgroup lingers offline
 * after rmdir), and a run of cheap commands pays it per command. One the kernel stopped a command
 * in (its counters are no longer zero) is removed instead; one with processes still in it waits
 * until they are gone.
 */
const idle = new Map<string, string[][]>();
const draining: { key: string; dirs: string[] }[] = [];

/** A cgroup for one command with these limits, or undefined where pairflow may not make one. */
export function commandCgroup(limits: CommandLimits): CommandCgroup | undefined {
  if (hierarchy === undefined) hierarchy = findHierarchy();
  if (hierarchy === null) return undefined;
  const key = `${limits.processes}/${limits.memoryBytes}`;
  const dirs = reuse(key) ?? makeCgroup(hierarchy, limits);
  if (dirs === undefined) return undefined;
  const version = hierarchy.version;
  // Read once: the kernel's counters are what both the outcome and the reuse go by.
  let stopped: { hit: LimitHit | undefined } | undefined;
  const hit = () => (stopped ??= { hit: hitIn(version, dirs) }).hit;
  return {
    procs: dirs.map((dir) => path.join(dir, "cgroup.procs")),
    hit,
    dispose() {
      if (hit()) {
        killMembers(version, dirs);
        for (const dir of dirs) removeCgroup(dir);
        return;
      }
      if (members(dirs[0]!).length === 0) return void idle.set(key, [...(idle.get(key) ?? []), dirs]);
      // Whatever the command left hiding: killed now, the cgroup free once they are gone.
      killMembers(version, dirs, false);
      draining.push({ key, dirs });
    },
  };
}

/** An idle cgroup for these limits, after taking back those whose leftovers are gone. */
function reuse(key: string): string[] | undefined {
  for (let i = draining.length - 1; i >= 0; i--) {
    const { key: k, dirs } = draining[i]!;
    if (members(dirs[0]!).length > 0) continue;
    draining.splice(i, 1);
    idle.set(k, [...(idle.get(k) ?? []), dirs]);
  }
  return idle.get(key)?.pop();
}

function makeCgroup(hierarchy: Hierarchy, limits: CommandLimits): string[] | undefined {
  const name = `c${++made}`;
  const dirs = hierarchy.dirs.map((dir) => path.join(dir, name));
  try {
    for (const dir of dirs) mkdirSync(dir);
    if (hierarchy.version === 2) {
      writeFileSync(path.join(dirs[0]!, "pids.max"), String(limits.processes));
      writeFileSync(path.join(dirs[0]!, "memory.max"), String(limits.memoryBytes));
      tryWrite(path.join(dirs[0]!, "memory.swap.max"), "0");
    } else {
      writeFileSync(path.join(dirs[0]!, "pids.max"), String(limits.processes));
      writeFileSync(path.join(dirs[1]!, "memory.limit_in_bytes"), String(limits.memoryBytes));
      tryWrite(path.join(dirs[1]!, "memory.memsw.limit_in_bytes"), String(limits.memoryBytes));
    }
    return dirs;
  } catch {
    for (const dir of dirs) removeCgroup(dir);
    return undefined;
  }
}

function hitIn(version: 1 | 2, dirs: string[]): LimitHit | undefined {
  const [pids, memory] = version === 2 ? [dirs[0]!, dirs[0]!] : [dirs[0]!, dirs[1]!];
  if (version === 2 ? counter(path.join(memory, "memory.events"), "oom_kill") > 0 : counter(path.join(memory, "memory.oom_control"), "oom_kill") > 0)
    return "memory";
  if (counter(path.join(pids, "pids.events"), "max") > 0) return "processes";
  return undefined;
}

/** Kills what is in a cgroup, and waits (briefly) until it is gone, unless told not to. */
function killMembers(version: 1 | 2, dirs: string[], wait = true): void {
  if (version === 2) tryWrite(path.join(dirs[0]!, "cgroup.kill"), "1");
  for (let round = 0; round < 100; round++) {
    const left = members(dirs[0]!);
    if (left.length === 0) return;
    for (const pid of left) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // gone
      }
    }
    if (!wait) return;
    sleepSync(2);
  }
}

/** Removes this process's cgroups for commands (called when it exits). */
function removeRunCgroups(): void {
  if (!hierarchy) return;
  for (const { dirs } of draining.splice(0)) killMembers(hierarchy.version, dirs);
  for (const dir of hierarchy.dirs) {
    for (const child of readdirSafe(dir)) removeCgroup(path.join(dir, child));
    removeCgroup(dir);
  }
}

/**
 * Where this process may make cgroups: a directory of its own under its cgroup (v1: under each of
 * the pids and memory controllers; v2: beside its own, with both controllers delegated), made now,
 * or null.
 */
function findHierarchy(): Hierarchy | null {
  if (process.platform !== "linux" || process.env.PAIRFLOW_CGROUPS === "off") return null;
  let own: string;
  try {
    own = readFileSync("/proc/self/cgroup", "utf8");
  } catch {
    return null;
  }
  const lines = own.split("\n").map((line) => line.split(":"));
  const v2 = lines.find((l) => l[0] === "0" && l[1] === "")?.[2];
  const pathOf = (controller: string) => lines.find((l) => l[0] !== "0" && (l[1] ?? "").split(",").includes(controller))?.[2];
  const created: string[] = [];
  const make = (dir: string) => {
    mkdirSync(dir);
    created.push(dir);
  };
  try {
    const pids = pathOf("pids");
    const memory = pathOf("memory");
    if (pids !== undefined && memory !== undefined && existsSync("/sys/fs/cgroup/pids/cgroup.procs") && existsSync("/sys/fs/cgroup/memory/cgroup.procs")) {
      const dirs = [path.join("/sys/fs/cgroup/pids", pids, runTag), path.join("/sys/fs/cgroup/memory", memory, runTag)];
      for (const dir of dirs) make(dir);
      process.on("exit", removeRunCgroups);
      return { version: 1, dirs };
    }
    if (v2 !== undefined && existsSync("/sys/fs/cgroup/cgroup.controllers")) {
      // A cgroup with processes cannot give controllers to children (v2's rule): the run's own
      // goes beside this process's cgroup (or in it, at the root), where they are delegated.
      const base = path.join("/sys/fs/cgroup", v2 === "/" ? "/" : path.dirname(v2));
      const enabled = readFileSync(path.join(base, "cgroup.subtree_control"), "utf8").split(/\s+/);
      if (!enabled.includes("pids") || !enabled.includes("memory")) writeFileSync(path.join(base, "cgroup.subtree_control"), "+pids +memory");
      const dir = path.join(base, runTag);
      make(dir);
      writeFileSync(path.join(dir, "cgroup.subtree_control"), "+pids +memory");
      process.on("exit", removeRunCgroups);
      return { version: 2, dirs: [dir] };
    }
  } catch {
    for (const dir of created.reverse()) removeCgroup(dir);
  }
  return null;
}

function members(dir: string): number[] {
  try {
    return readFileSync(path.join(dir, "cgroup.procs"), "utf8")
      .split("\n")
      .filter((line) => /^\d+$/.test(line))
      .map(Number);
  } catch {
    return [];
  }
}

/** A key's value in a flat keyed file (`max 3`, `oom_kill 1`); 0 when absent. */
function counter(file: string, key: string): number {
  try {
    const line = readFileSync(file, "utf8")
      .split("\n")
      .find((l) => l.startsWith(`${key} `));
    return line === undefined ? 0 : Number(line.slice(key.length + 1)) || 0;
  } catch {
    return 0;
  }
}

function tryWrite(file: string, data: string): void {
  try {
    writeFileSync(file, data);
  } catch {
    // a controller file this kernel lacks, or a process already gone
  }
}

function removeCgroup(dir: string): void {
  for (let round = 0; round < 50; round++) {
    try {
      rmdirSync(dir);
      return;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "ENOENT") return;
      if (code !== "EBUSY") return;
      sleepSync(2);
    }
  }
}

function readdirSafe(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
  } catch {
    return [];
  }
}

const pause = new Int32Array(new SharedArrayBuffer(4));
function sleepSync(ms: number): void {
  Atomics.wait(pause, 0, 0, ms);
}
