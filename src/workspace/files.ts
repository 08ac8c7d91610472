import { randomBytes } from "node:crypto";
import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, renameSync, rmSync, writeSync } from "node:fs";
import path from "node:path";

/**
 * Writes a file so that readers see the old content or the new, never a mix: the data goes to a
 * temporary file in the same directory, is flushed to disk, and is renamed over the target.
 */
export function writeFileAtomic(file: string, data: string | Uint8Array): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
  try {
    const fd = openSync(tmp, "w");
    try {
      const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
      // writeSync may write less than asked (a full disk, a signal): go on until all is written or
      // it throws (ENOSPC), which leaves the previous file as it was and removes the temporary one.
      for (let done = 0; done < bytes.length;) done += writeSync(fd, bytes, done, bytes.length - done);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, file);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

const TEMPORARY = /^\..+\.(\d+)\.[0-9a-f]{8}\.tmp$/;

/**
 * Removes the temporary files writeFileAtomic left in these directories when its process was
 * killed mid-write (SIGKILL, power loss): those whose writer no longer runs. Returns their paths.
 */
export function removeStaleTemporaries(dirs: Iterable<string>): string[] {
  const removed: string[] = [];
  for (const dir of new Set(dirs)) {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue; // not there (yet): nothing left behind
    }
    for (const name of names) {
      const pid = Number(TEMPORARY.exec(name)?.[1]);
      if (!pid || alive(pid)) continue;
      rmSync(path.join(dir, name), { force: true });
      removed.push(path.join(dir, name));
    }
  }
  return removed;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
