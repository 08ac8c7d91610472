/**
 * What a command printed reaches the terminal and the job log with its control characters made
 * visible, never interpreted: a guard's feedback that changes the window title, or clears the
 * line to hide a rejection, shows as the text it is. pairflow's own colours stay colours.
 */
import { describe, expect, it } from "vitest";
import { runCli } from "../../src/cli/program.js";
import { tempRepo } from "../helpers/fixtures.js";
import { runAction } from "../action/runner.js";

/** Printed by the guard and the generator: a title change, then a cleared line over the rejection. */
const HOSTILE = String.raw`\033]0;pwned\007 \033[2K\rall good`;
const SHOWN = String.raw`\x1b]0;pwned\x07 \x1b[2K\x0dall good`;

const WORKFLOW = `name: hostile
generator: command
generator_config: {run: 'printf "${HOSTILE}\\n" >&2; echo text'}
rmax: 1
action_pairs:
  a:
    output: out/a.txt
    guard: command
    guard_config: {run: 'printf "rejected ${HOSTILE}\\n"; exit 1'}
`;

/**
 * Control characters other than newline, tab, pairflow's own colours (ESC [ digits m) and the live
 * view's redraw (a carriage return, the cursor up over the view's lines, and clearing below).
 */
function strayControls(text: string): string[] {
  return [...text.replace(/\x1b\[[\d;]*m|\r(?:\x1b\[\d+A)?\x1b\[J|\r\x1b\[2K/g, "").matchAll(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/g)].map((m) =>
    JSON.stringify(m[0]),
  );
}

/** `pairflow ARGS` in-process, on a terminal with colours. */
async function onTerminal(args: string[], cwd: string): Promise<{ status: number; out: string }> {
  let out = "";
  const write = (s: string) => (out += s);
  const status = await runCli(args, { stdout: { write, isTTY: true }, stderr: { write, isTTY: true }, cwd, env: { TERM: "xterm" } });
  return { status, out };
}

describe("control characters a command printed", () => {
  it("are made visible in progress, --verbose stderr, the run summary and show, on a terminal with colours", async () => {
    const dir = tempRepo({ "workflow.yml": WORKFLOW });
    const run = await onTerminal(["run", "--verbose"], dir);
    expect(run.status).toBe(1);
    expect(strayControls(run.out)).toEqual([]);
    // The stderr shown with --verbose and the failure in the summary show it whole; the retry and
    // failure lines quote its first line (up to the carriage return), escaped too.
    expect(run.out.split(SHOWN).length - 1).toBeGreaterThanOrEqual(3);
    expect(run.out).toMatch(/retry .*rejected: rejected \\x1b\]0;pwned\\x07/);
    expect(run.out).toContain("\x1b[31m"); // pairflow's own red, as it was
    const runId = /run (\d{8}T\d{9}Z-[0-9a-f]+)/.exec(run.out)![1]!;
    const show = await onTerminal(["show", runId], dir);
    expect(show.status).toBe(0);
    expect(strayControls(show.out)).toEqual([]);
    expect(show.out).toContain(`rejected ${SHOWN}`);
  });

  it("are made visible in the action's job log and annotations", async () => {
    const dir = tempRepo({ "workflow.yml": WORKFLOW });
    const result = await runAction({ workspace: dir, with: { mode: "run", path: ".", cache: "false" } });
    expect(strayControls(result.stdout)).toEqual([]);
    expect(result.stdout).toContain(SHOWN);
  });
});
