/**
 * A file name is data, through the installed CLI: a committed file whose name carries an escape
 * sequence (OSC 52 writes the clipboard, CSI 2K erases a line), new lines that would start a
 * heading, an `@`-mention, `<!--` and a bidi control is a foreach instance's id and an input's
 * name. `plan`, `diff`, `run` and `explain` show it with every control and bidi character made
 * visible and no line of its own; nothing of it reaches the terminal raw.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { scaled } from "../helpers/time.js";
import { commitAll, git, gitRepo } from "../pr/repo.js";
import { pairflow } from "./built.js";

const HOSTILE = "b\x1b]52;c;aGk=\x07\x1b[2K\n\n# Heading @octocat <!-- \u202e.md";
/** As a terminal shows it now. */
const SHOWN = "b\\x1b]52;c;aGk=\\x07\\x1b[2K\\x0a\\x0a# Heading @octocat <!-- \\u202e.md";

const WORKFLOW = `name: hostile
rmax: 0
generator: command
generator_config: {run: "cat {file}"}
action_pairs:
  page:
    foreach: {files: docs/*.md}
    output: out/{stem}.txt
  all:
    inputs: [docs/*.md]
    output: out/all.txt
    generator_config: {run: "echo all"}
`;

/** What a terminal would act on or not show: controls but new line, bidi and other format characters. */
const HIDDEN = /[\x00-\x09\x0b-\x1f\x7f-\x9f\p{Cf}\p{Zl}\p{Zp}]/u;

function shownClean(args: string[], dir: string): string {
  const r = pairflow(args, { cwd: dir });
  expect(r.status, r.stderr).toBe(0);
  const out = r.stdout + r.stderr;
  expect(out).not.toMatch(HIDDEN);
  // The name's new lines are made visible: no line of the output starts with its heading.
  expect(out.split("\n").some((l) => l.startsWith("# Heading"))).toBe(false);
  return out;
}

describe("a file name with an escape sequence, new lines and a bidi control", () => {
  let dir: string;
  beforeAll(() => {
    dir = gitRepo({ "workflow.yml": WORKFLOW, "prompts.yml": "page: {task: t}\nall: {task: t}\n", "docs/a.md": "A.\n" });
    git(dir, "checkout", "-q", "-b", "feature");
    writeFileSync(path.join(dir, "docs", HOSTILE), "B.\n");
    commitAll(dir, "a page with a hostile name");
  });

  it("plan shows it made visible", { timeout: scaled(60_000) }, () => {
    expect(shownClean(["plan"], dir)).toContain(`page[docs/${SHOWN}]`);
  });

  it("diff shows it made visible", { timeout: scaled(60_000) }, () => {
    expect(shownClean(["diff", "--base", "main"], dir)).toContain(`page[docs/${SHOWN}]`);
  });

  it("run, and explain after it, show it made visible", { timeout: scaled(120_000) }, () => {
    expect(shownClean(["run"], dir)).toContain(`page[docs/${SHOWN}]`);
    expect(shownClean(["explain", `page[docs/${HOSTILE}]`], dir)).toContain(`page[docs/${SHOWN}]`);
    writeFileSync(path.join(dir, "docs", HOSTILE), "B, edited.\n");
    expect(shownClean(["plan"], dir)).toContain(`docs/${SHOWN}`);
  });
});
