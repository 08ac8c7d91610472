import { randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeSync,
  type Stats,
} from "node:fs";
import { open, rename, rm } from "node:fs/promises";
import path from "node:path";

/** Why a write of one of pairflow's own files failed, in words, by the system's error code. */
export const WRITE_FAILURES: Record<string, string> = {
  ENOSPC: "no space left on the device",
  EDQUOT: "the disk quota is exceeded",
  EFBIG: "the file is too large",
  EROFS: "the file system is read-only",
  EIO: "an input/output error",
  ENOENT: "a directory on its path is gone (removed while pairflow ran?)",
  ENOTDIR: "something on its path that should be a directory is not one",
  EISDIR: "a directory is where the file should be",
  EACCES: "permission denied",
  EPERM: "the operation is not permitted",
  ELOOP: "too many symbolic links on its path",
  ENAMETOOLONG: "its name is too long for the file system",
};

/**
 * A write of one of pairflow's own files (an output, the lock file and its journal, the store, the
 * run mutex) failed where it writes: the file system's error (code, path) with its reason in words.
 */
export class WriteError extends Error {
  override name = "WriteError";
  constructor(
    readonly code: string,
    /** The file pairflow was writing. */
    readonly path: string,
    /** Where on its way the system failed (a directory, a temporary file), when not the file itself. */
    readonly at: string | undefined,
    cause: unknown,
  ) {
    super(`could not write ${path}: ${WRITE_FAILURES[code]} (${code}${at ? ` at ${at}` : ""})`, { cause });
  }
}

/** Runs a write of `file`: a failure WRITE_FAILURES names becomes a WriteError naming the file. */
export function ownWrite<T>(file: string, write: () => T): T {
  try {
    return write();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (err instanceof WriteError || code === undefined || !Object.hasOwn(WRITE_FAILURES, code)) throw err;
    const at = (err as NodeJS.ErrnoException).path;
    throw new WriteError(code, file, at === file ? undefined : at, err);
  }
}

/**
 * Writes a file so that readers see the old content or the new, never a mix: the data goes to a
 * temporary file in the same directory, is flushed to disk, and is renamed over the target.
 */
export function writeFileAtomic(file: string, data: string | Uint8Array): void {
  ownWrite(file, () => {
    mkdirSync(path.dirname(file), { recursive: true });
    const tmp = temporaryFor(file);
    try {
      writeFlushed(tmp, data);
      renameSync(tmp, file);
    } catch (err) {
      rmSync(tmp, { force: true });
      throw err;
    }
  });
}

/**
 * writeFileAtomic, its waits (the write to disk above all, which takes milliseconds) off the
 * calling thread: a run goes on with other pairs meanwhile. A failure is a WriteError as there.
 */
export async function writeFileAtomicAsync(file: string, data: string | Uint8Array): Promise<void> {
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    const tmp = temporaryFor(file);
    try {
      const handle = await open(tmp, "w");
      try {
        await handle.writeFile(data);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(tmp, file);
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
  } catch (err) {
    // As ownWrite names it.
    ownWrite(file, () => {
      throw err;
    });
  }
}

/**
 * Creates `file` holding `data` unless something is there already, which it never overwrites:
 * then it returns false. The name never holds part of the data: the data goes to a temporary file
 * in the same directory, is flushed to disk, and is hard-linked to the name, which fails when the
 * name is taken (a rename would replace what is there).
 */
export function createFileExclusive(file: string, data: string | Uint8Array): boolean {
  return ownWrite(file, () => createExclusive(file, data));
}

function createExclusive(file: string, data: string | Uint8Array): boolean {
  mkdirSync(path.dirname(file), { recursive: true });
  const tmp = temporaryFor(file);
  try {
    writeFlushed(tmp, data);
    linkSync(tmp, file);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return false;
    if (code !== "EPERM" && code !== "ENOTSUP" && code !== "ENOSYS" && code !== "EXDEV") throw err;
    // A file system without hard links: the name is claimed, then written.
    return createNew(file, data, { flush: true });
  } finally {
    rmSync(tmp, { force: true });
  }
}

/**
 * Creates `file` holding `data` unless something is there already (a link included), which it
 * never overwrites: then it returns false. The name is claimed, then written; a failure to write
 * removes what it claimed, so no part of the data stays behind. A reader meanwhile, or after a
 * kill, can find it torn: for data that says when it is whole (hashed, parsed), or with `flush`
 * where a crash is what is guarded against.
 */
export function createNew(file: string, data: string | Uint8Array, options: { flush: boolean }): boolean {
  let fd: number;
  try {
    fd = openSync(file, "wx");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw err;
  }
  try {
    if (options.flush) writeAll(fd, data);
    else writeFileSync(fd, data);
  } catch (err) {
    closeSync(fd);
    rmSync(file, { force: true });
    throw err;
  }
  closeSync(fd);
  return true;
}

/**
 * Named as removeStaleTemporaries recognises: the writer's pid and a random tag, after the file's
 * name, cut to 100 bytes so that the temporary name of a file whose name is as long as the file
 * system allows (255 bytes) fits too.
 */
export function temporaryFor(file: string): string {
  return path.join(path.dirname(file), `.${shortName(path.basename(file))}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
}

function shortName(name: string): string {
  const bytes = Buffer.from(name, "utf8");
  if (bytes.length <= 100) return name;
  // Cut on a character's boundary: a UTF-8 continuation byte is 10xxxxxx.
  let end = 100;
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString("utf8");
}

/** Writes all of data to a new file (flag w: truncating whatever is there), flushed to disk. */
function writeFlushed(file: string, data: string | Uint8Array): void {
  const fd = openSync(file, "w");
  try {
    writeAll(fd, data);
  } finally {
    closeSync(fd);
  }
}

function writeAll(fd: number, data: string | Uint8Array): void {
  const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
  // writeSync may write less than asked (a full disk, a signal): go on until all is written or
  // it throws (ENOSPC), which leaves the previous file as it was and removes the temporary one.
  for (let done = 0; done < bytes.length;) done += writeSync(fd, bytes, done, bytes.length - done);
  fsyncSync(fd);
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

/** Whether a process of this pid runs (one of another user's included). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** A file's content, never read through a link (ELOOP) nor from anything but a regular file (EISDIR). */
export function readFileNoFollow(file: string): Buffer {
  const fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw Object.assign(new Error(`${file} is not a regular file`), { code: "EISDIR" });
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * What is at the path, a link itself rather than what it leads to; undefined when nothing is, or
 * a file is on the way (ENOTDIR). Asked for every output and state directory on every command, so
 * a missing path costs no thrown error (throwIfNoEntry).
 */
export function lstatOrUndefined(file: string): Stats | undefined {
  try {
    return lstatSync(file, { throwIfNoEntry: false });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOTDIR") return undefined;
    throw err;
  }
}
