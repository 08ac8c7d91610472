/** A problem in a configuration file, at a place a person can jump to. */
export interface ConfigIssue {
  file: string;
  line: number;
  column: number;
  /** Dotted key path of the offending value (`action_pairs.g_test.guard`), or "" for the whole file. */
  key: string;
  message: string;
  /**
   * How bad it is: an error stops the command; a warning is a likely problem that does not (unless
   * validate --strict); a note only explains. Absent means error.
   */
  severity?: Severity;
}

export type Severity = "error" | "warning" | "note";

export class ConfigError extends Error {
  constructor(readonly issues: ConfigIssue[]) {
    super(issues.map(formatIssue).join("\n"));
    this.name = "ConfigError";
  }
}

/** Bad command-line usage (unknown option, missing argument): exit status 2 like bad configuration. */
export class UsageError extends Error {
  override name = "UsageError";
}

export function formatIssue(issue: ConfigIssue): string {
  const where = `${issue.file}:${issue.line}:${issue.column}`;
  return issue.key ? `${where}: ${issue.key}: ${issue.message}` : `${where}: ${issue.message}`;
}

export function sortIssues(issues: ConfigIssue[]): ConfigIssue[] {
  return [...issues].sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.column - b.column || a.message.localeCompare(b.message));
}

export class InputError extends Error {
  override name = "InputError";
}

/**
 * A file could not be written (a full disk, a quota, a read-only file system): the run stopped,
 * every file it had written is whole, and running again once the cause is gone completes it.
 */
export class StorageError extends Error {
  override name = "StorageError";
}

/** The person at the terminal said no: nothing was executed. */
export class RunDeclinedError extends Error {
  override name = "RunDeclinedError";
}
