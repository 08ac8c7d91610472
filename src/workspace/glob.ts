/**
 * The one way pairflow lists files a pull request controls (`inputs`, the `files` of
 * generator_config and guard_config, foreach `files`): fast-glob, with two rules of its own.
 *
 * - No symbolic link is ever followed while walking: a link to `.` or to `/` is not descended
 *   (two committed links to `.` would make `**` walk 2^depth paths, one to `/` the whole file
 *   system), and a link loop is nothing to walk. A link the glob matches by its own name counts as
 *   a file when it leads to a regular file: its content is that file's (src/workspace/inputs.ts
 *   refuses one that leads outside the repository). A link to a directory, to nothing, or to
 *   itself is no file and is not matched.
 * - Names are read as bytes, so a name that is not UTF-8 is matched under its exact text
 *   (src/model/fileName.ts) instead of a U+FFFD spelling no file has.
 */
import { lstatSync, readdirSync, realpathSync, statSync, type Dirent, type Stats } from "node:fs";
import path from "node:path";
import fg from "fast-glob";
import { isUtf8Name, nameBytes, nameText } from "../model/fileName.js";

/** A path as Node's file system calls take it: its text, or its bytes when it names bytes that are not UTF-8. */
export function fsPath(file: string): string | Buffer {
  return isUtf8Name(file) ? file : nameBytes(file);
}

/** realpathSync.native for names of any bytes. */
export function realPath(file: string): string {
  return isUtf8Name(file) ? realpathSync.native(file) : nameText(realpathSync.native(nameBytes(file), { encoding: "buffer" }));
}

/** A file's Stats after links, undefined when nothing is there (a dangling link, a loop, a file on the way). */
export function statFollowing(file: string): Stats | undefined {
  try {
    return statSync(fsPath(file), { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/**
 * A directory's entries, each name the text of its bytes. Read as text first: only a directory
 * where a name came back with U+FFFD (the spelling of bytes that are not UTF-8, or the character
 * itself) is read again as bytes.
 */
function entries(dir: string): Dirent[] {
  const read = readdirSync(fsPath(dir), { withFileTypes: true });
  if (!read.some((entry) => entry.name.includes("\ufffd"))) return read;
  return readdirSync(fsPath(dir), { withFileTypes: true, encoding: "buffer" }).map((entry) =>
    Object.assign(entry as unknown as Dirent, { name: nameText(entry.name) }),
  );
}

/** The file system as fast-glob sees it: every path handed back as the bytes it stands for, every name read as bytes. */
const BYTE_NAMES = {
  lstatSync: (file: string) => lstatSync(fsPath(file)),
  statSync: (file: string) => statSync(fsPath(file)),
  readdirSync: ((dir: string, options?: { withFileTypes?: boolean }) =>
    options?.withFileTypes ? entries(dir) : entries(dir).map((entry) => entry.name)) as unknown as typeof readdirSync,
};

export interface GlobOptions {
  /** Whether `*` and `**` match names starting with a dot. */
  dot: boolean;
  ignore?: string[];
  /**
   * The repository: a glob whose fixed start leads out of it through a link (`linked/**` where
   * `linked` is `/`) is not walked at all; the configuration reports it where it can.
   */
  within?: string;
}

/**
 * The files the globs match (exclusions start with "!"), relative to cwd, never inside .git, by
 * the rules above.
 */
export function globFiles(patterns: readonly string[], cwd: string, options: GlobOptions): string[] {
  const within = options.within === undefined ? undefined : realPath(options.within);
  const walked = within === undefined ? patterns : patterns.filter((p) => p.startsWith("!") || staysWithin(p, cwd, within));
  if (!walked.some((p) => !p.startsWith("!"))) return [];
  const entries = fg.sync([...walked], {
    cwd,
    dot: options.dot,
    onlyFiles: false,
    objectMode: true,
    unique: true,
    followSymbolicLinks: false,
    ignore: ["**/.git/**", ...(options.ignore ?? [])],
    fs: BYTE_NAMES,
  });
  return entries
    .filter((entry) => entry.dirent.isFile() || (entry.dirent.isSymbolicLink() && statFollowing(path.resolve(cwd, entry.path))?.isFile() === true))
    .map((entry) => entry.path);
}

/** Whether the fixed start of a glob (before its first wildcard), as far as it exists, is inside `within` after links. */
function staysWithin(pattern: string, cwd: string, within: string): boolean {
  const segments = pattern.split("/");
  const firstGlob = segments.findIndex((segment) => fg.isDynamicPattern(segment));
  let fixed = path.resolve(cwd, (firstGlob === -1 ? segments.slice(0, -1) : segments.slice(0, firstGlob)).join("/"));
  while (statFollowing(fixed) === undefined && path.dirname(fixed) !== fixed) fixed = path.dirname(fixed);
  const real = realPath(fixed);
  const rel = path.relative(within, real);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}
