import { existsSync, readdirSync, readFileSync } from "node:fs";

/** Whether a process still runs (a zombie waiting for a reaper does not count). */
export function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return !existsSync("/proc/self"); // no /proc: trust kill(0)
  }
}

/**
 * Which of `pids` still run with `marker` in their command line: a pid seen once may, by the time
 * of a later look, belong to another process (a busy machine cycles 32,768 pids in seconds).
 */
export function stillRunning(pids: readonly number[], marker: string): number[] {
  const now = new Set(processesWith(marker));
  return pids.filter((pid) => now.has(pid) && running(pid));
}

/** The processes whose command line holds `marker`. */
export function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc").filter((n) => /^\d+$/.test(n))) {
    try {
      if (readFileSync(`/proc/${name}/cmdline`, "utf8").includes(marker)) found.push(Number(name));
    } catch {
      // gone
    }
  }
  return found;
}
