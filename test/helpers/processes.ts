import { existsSync, readFileSync } from "node:fs";

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
