import path from "node:path";

export function isInside(root: string, target: string): boolean {
  const rel = path.relative(root, target);
  // A name that only starts with two dots ("..x", "...") is inside.
  return rel !== ".." && !rel.startsWith(".." + path.sep) && !path.isAbsolute(rel);
}

/** workflow.yml -> workflow.lock.json, in the same directory. */
export function lockFileOf(workflowPath: string): string {
  const ext = path.extname(workflowPath);
  return path.join(path.dirname(workflowPath), `${path.basename(workflowPath, ext)}.lock.json`);
}

/** The state directory used when none is given: .pairflow/ at the repository root. */
export function defaultStateDir(root: string): string {
  return path.join(root, ".pairflow");
}

/** What an output may never be: the places git and pairflow keep their own files. */
export interface Reserved {
  root: string;
  /** The workflow's lock file; its journal, run mutex and temporary files are `.<name>.*` beside it. */
  lockFile: string;
  /** State directories; .pairflow/ at the root is always one. */
  stateDirs?: readonly string[];
}

/**
 * Why a pair may never write its output at `file` (an absolute path), or undefined: inside a .git
 * directory at any depth (git runs hooks and reads configuration from there, so a model's output
 * would become code git runs), the lock file (every later command would fail on it), the files
 * pairflow keeps beside it (the journal, the run mutex, their temporary files), or a state
 * directory. Names are compared without case: on a file system that ignores case they are the
 * same file.
 */
export function reservedOutput(file: string, reserved: Reserved): string | undefined {
  const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
  const rel = path.relative(reserved.root, file);
  if (rel.split(path.sep).some((part) => same(part, ".git"))) {
    return "is inside a .git directory, where git keeps a repository's configuration and hooks (git would run what a model wrote); give a path outside .git";
  }
  if (same(file, reserved.lockFile)) return "is the workflow's lock file, which pairflow writes itself; give the output another path";
  const lockName = path.basename(reserved.lockFile);
  if (same(path.dirname(file), path.dirname(reserved.lockFile)) && path.basename(file).toLowerCase().startsWith(`.${lockName.toLowerCase()}.`)) {
    return `is where pairflow keeps the lock file's journal, run mutex and temporary files (.${lockName}.*); give the output another path`;
  }
  for (const dir of [defaultStateDir(reserved.root), ...(reserved.stateDirs ?? [])]) {
    if (isInside(dir.toLowerCase(), file.toLowerCase())) {
      return `is inside pairflow's state directory (${path.relative(reserved.root, dir) || dir}); give a path outside it`;
    }
  }
  return undefined;
}

/**
 * A path as a glob that matches exactly that path. Each character a glob gives meaning to is put
 * in a character class of its own (`*` -> `[*]`, `]` -> `[\]]`): fast-glob's escapePath leaves a
 * backslash before a special character as it is, taking it for an escape ("x\*.md" then matches
 * "x*.md", not itself), and with backslash escapes fast-glob may take a name such as `{]` for the
 * directory to walk and fail. Classes have neither problem (checked over hostile names in
 * test/security/rules.test.ts).
 */
export function escapeGlob(text: string): string {
  return text.replace(/[\\*?[\]{}()!@+|]/g, (c) => (c === "]" || c === "\\" || c === "!" ? `[\\${c}]` : `[${c}]`));
}
