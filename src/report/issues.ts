/** Configuration problems as the command line prints them. */
import { formatIssue, type ConfigIssue } from "../model/errors.js";
import { nameFor } from "./names.js";
import { visible } from "./visible.js";

/** How many problems of one file text output shows; `--json` lists them all. */
export const SHOWN_PER_FILE = 50;

/**
 * The problems, one a line (`error workflow.yml:3:5: key: message`, tagged `tag`): each
 * file's first `perFile` in the order given, then one line saying how many more that file has. A
 * lock file of 50,000 damaged entries prints 51 lines, not 50,000: what to do is the same for each.
 */
export function issueLines(issues: readonly ConfigIssue[], tag: string, perFile = SHOWN_PER_FILE): string[] {
  const total = new Map<string, number>();
  for (const issue of issues) total.set(issue.file, (total.get(issue.file) ?? 0) + 1);
  const shown = new Map<string, number>();
  const lines: string[] = [];
  for (const issue of issues) {
    const n = (shown.get(issue.file) ?? 0) + 1;
    shown.set(issue.file, n);
    if (n <= perFile) lines.push(`${tag} ${visible(formatIssue(issue))}`);
    const more = total.get(issue.file)! - perFile;
    if (n === perFile && more > 0)
      lines.push(`... and ${more} more ${more === 1 ? "problem" : "problems"} in ${nameFor(issue.file, "terminal")} (--json lists them all)`);
  }
  return lines;
}
