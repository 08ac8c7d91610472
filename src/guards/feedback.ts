/**
 * What a command guard's output says failed: the text a rejected attempt's feedback, the retry line
 * and the next prompt quote. Test runners and compilers print far more than their verdict (banners,
 * passing tests, progress, stack frames inside the runner), and the verdict is not where a cut of
 * the output's end lands. So the failing lines lead, as the usual tools print them: TAP and
 * `node --test` (its spec and TAP reporters), pytest, vitest and jest, JUnit XML, `tsc` and
 * eslint's stylish format; each failure's assertion or error, its expected and actual values and
 * where it happened, then the runner's one-line count. Output none of them is recognised in keeps
 * its end, as a command's output always did. Pure: text in, text out.
 */

/** At most this many lines and characters, as the end of the output was kept before. */
const MAX_LINES = 40;
const MAX_CHARS = 4000;
/** One failure takes at most this many lines, so the next ones get a look in. */
const MAX_BLOCK_LINES = 20;
/** A longer line (minified code, a huge value) is cut. */
const MAX_LINE_CHARS = 300;
/** Stack frames kept under one failure: where it happened in the code under test, not in the runner. */
const MAX_FRAMES = 2;

/** What the end of an unrecognised output starts with when more came before it. */
const EARLIER_OMITTED = "[earlier output omitted]";

/** The text to give the model and people for a rejection: the failing lines first, else the end. */
export function feedbackOf(output: string): string {
  const lines = cleanLines(output);
  const found = READERS.map((read) => read(lines));
  let blocks = chooseBlocks(found.map((f) => f.blocks));
  // A test list's failing entries, when no runner's report of them is in the output.
  if (blocks.length === 0) blocks = readMarks(lines).blocks;
  if (blocks.length === 0) return tail(output);
  const summaries = found.flatMap((f) => (f.summary === undefined ? [] : [f.summary]));
  summaries.sort((a, b) => a.at - b.at);
  return assemble(blocks, summaries);
}

/** The end of the output, at most 40 lines and 4000 characters; "" when it is blank. */
export function tail(output: string): string {
  // trimEnd, not a regular expression: /\s+$/ takes quadratic time on a long run of blanks.
  const trimmed = output.trimEnd();
  if (trimmed.trim() === "") return "";
  const lines = trimmed.split("\n");
  let text = lines.slice(-MAX_LINES).join("\n");
  let cut = lines.length > MAX_LINES;
  if (text.length > MAX_CHARS) {
    text = text.slice(-MAX_CHARS);
    cut = true;
  }
  return cut ? `${EARLIER_OMITTED}\n${text}` : text;
}

/** Lines of one failure: `from`..`to` (inclusive) of the cleaned output; `lead` ones come first. */
interface Block {
  from: number;
  to: number;
  lines: string[];
  lead?: boolean;
}

interface Found {
  blocks: Block[];
  /** The runner's count of failures (`3 failed, 2 passed in 2.03s`), said last. */
  summary?: Count;
}

/** A runner's one-line count, and the line it was on. */
interface Count {
  at: number;
  text: string;
}

/** The first line matching `pattern`, as a count: trimmed, its runs of blanks made one. */
function countLine(lines: readonly string[], pattern: RegExp): Count | undefined {
  const at = lines.findIndex((l) => pattern.test(l));
  return at < 0 ? undefined : { at, text: lines[at]!.trim().replace(/\s+/g, " ") };
}

/** node's `tests 6` and `fail 4` (after `# ` in TAP, `ℹ ` in the spec reporter) in one line. */
function testsAndFails(lines: readonly string[], prefix: string): Count | undefined {
  const tests = countLine(lines, new RegExp(`^${prefix} tests \\d+$`));
  const fail = countLine(lines, new RegExp(`^${prefix} fail \\d+$`));
  return tests && fail ? { at: fail.at, text: `${tests.text.slice(2)}, ${fail.text.slice(2)}` } : undefined;
}

type Reader = (lines: readonly string[]) => Found;

// ---------------------------------------------------------------------------------------------
// Cleaning

/** Colour and cursor codes (CSI) and terminal titles and links (OSC), which a runner prints on a terminal or when forced. */
const ESC = "\x1b";
const BEL = "\x07";
const ANSI = new RegExp(`${ESC}\\[[0-?]*[ -/]*[@-~]|${ESC}\\][^${BEL}${ESC}]*(?:${BEL}|${ESC}\\\\)|${ESC}[@-Z\\\\-_]`, "g");

/** The output as a terminal shows it: no escape codes, and of a line redrawn with \r its last state. */
function cleanLines(output: string): string[] {
  return output
    .replace(ANSI, "")
    .replace(/\r\n/g, "\n")
    .split("\n")
    .map((line) => {
      const parts = line.split("\r").filter((p) => p !== "");
      return (parts[parts.length - 1] ?? "").trimEnd();
    });
}

const indent = (line: string) => /^\s*/.exec(line)![0].length;
const blank = (line: string) => line.trim() === "";

/** Lines that report a passing (or skipped) test, in any of the runners read here. */
const PASSING = /^\s*(ok \d+\b|[✓✔√]\s|PASS\s|# Subtest:|↓\s)/;

// ---------------------------------------------------------------------------------------------
// Stack frames and code frames

/** `at fn (file:line:col)`, `❯ file:line:col`, or a TAP stack entry `fn (file:line:col)`. */
const FRAME = /^\s*(?:at\s|❯\s)/;

/** A frame inside the runtime or a dependency says nothing about the code under test. */
function internalFrame(line: string): boolean {
  const where = (/\(([^()]*)\)\s*\{?$/.exec(line)?.[1] ?? line.replace(/^\s*(?:at|❯)\s+(?:async\s+)?/, "")).trim();
  // A frame in the code has a file and a line: `(index 0)` and `(<anonymous>)` are the runtime's.
  return !/:\d+(:\d+)?$/.test(where) || /^(node:|internal[/\\])/.test(where) || /(^|[/\\])node_modules[/\\]/.test(where);
}

/** jest's and vitest's code frame: `  8 |   code`, `> 8 | code`, and the caret line under it. */
const CODE_FRAME = /^\s*(?:>\s*)?\d+\s?\|/;
const CARET = /^\s*\|\s*[\^~]+\s*$/;

/**
 * What of a failure's lines to keep: no blank lines, no frames inside the runtime or node_modules
 * and at most MAX_FRAMES others, and of a code frame only the failing line and its caret.
 */
function keepLines(lines: readonly string[]): string[] {
  const kept: string[] = [];
  let frames = 0;
  for (const [i, line] of lines.entries()) {
    if (blank(line)) continue;
    if (FRAME.test(line)) {
      if (!internalFrame(line) && frames < MAX_FRAMES) {
        kept.push(line.replace(/\s*\{$/, ""));
        frames++;
      }
      continue;
    }
    if (CARET.test(line)) {
      if (kept.length > 0 && CODE_FRAME.test(lines[i - 1] ?? "")) kept.push(line);
      continue;
    }
    if (CODE_FRAME.test(line)) {
      if (/^\s*>/.test(line) || CARET.test(lines[i + 1] ?? "")) kept.push(line);
      continue;
    }
    kept.push(line);
  }
  return kept;
}

// ---------------------------------------------------------------------------------------------
// TAP, and node --test's TAP reporter

const NOT_OK = /^\s*not ok \d+\b(?!.*#\s*(?:skip|todo)\b)/i;

const readTap: Reader = (lines) => {
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^\s*Bail out!/.test(line)) {
      blocks.push({ from: i, to: i, lines: [line] });
      continue;
    }
    if (!NOT_OK.test(line)) continue;
    // The YAML block under it: `---` ... `...`, indented at least as deep as the test point.
    const body: string[] = [];
    let j = i + 1;
    if (/^\s*---\s*$/.test(lines[j] ?? "")) {
      j++;
      while (j < lines.length && !/^\s*\.\.\.\s*$/.test(lines[j]!)) body.push(lines[j++]!);
    }
    // A suite that failed because its tests did repeats them.
    if (body.some((l) => /failureType:\s*'?subtestsFailed/.test(l))) continue;
    blocks.push({ from: i, to: Math.min(j, lines.length - 1), lines: [line, ...tapBody(body)] });
    i = j;
  }
  return { blocks, summary: testsAndFails(lines, "#") };
};

/** A TAP diagnostic's keys, most telling first; keys not listed go before `at`, bookkeeping nowhere. */
const TAP_ORDER = ["message", "error", "wanted", "expected", "found", "actual", "diff", "", "at", "location", "stack"];
const TAP_DROPPED = /^(duration_ms|failureType|code|type|name|operator)$/;

/**
 * A TAP diagnostic (its YAML) with the error and the values first, then where it happened, its
 * stack cut to the frames in the code; without timings and bookkeeping.
 */
function tapBody(body: readonly string[]): string[] {
  const lines = body.filter((l) => !blank(l));
  if (lines.length === 0) return [];
  const top = Math.min(...lines.map(indent));
  const groups: { key: string; lines: string[] }[] = [];
  for (const line of lines) {
    const key = indent(line) === top ? /^\s*([\w-]+):/.exec(line)?.[1] : undefined;
    if (key !== undefined || groups.length === 0) groups.push({ key: key ?? "", lines: [line] });
    else groups[groups.length - 1]!.lines.push(line);
  }
  const rank = (key: string) => (TAP_ORDER.includes(key) ? TAP_ORDER.indexOf(key) : TAP_ORDER.indexOf(""));
  const kept: string[] = [];
  for (const group of groups.filter((g) => !TAP_DROPPED.test(g.key)).sort((a, b) => rank(a.key) - rank(b.key))) {
    if (group.key !== "stack") {
      kept.push(...group.lines);
      continue;
    }
    const frames = group.lines
      .slice(1)
      .filter((l) => !internalFrame(l))
      .slice(0, MAX_FRAMES);
    if (frames.length > 0) kept.push(group.lines[0]!, ...frames);
  }
  return kept;
}

// ---------------------------------------------------------------------------------------------
// node --test's spec reporter

/** `✖ adds (1.32ms)`: a test that failed; its error is indented under it. */
const SPEC_FAIL = /^(\s*)✖ (.*) \(\d+(?:\.\d+)?m?s\)$/;

const readNodeSpec: Reader = (lines) => {
  // The reporter lists every failure again under `✖ failing tests:`; that list alone, when it is there.
  const listed = lines.findIndex((l) => /^✖ failing tests:$/.test(l));
  const blocks: Block[] = [];
  for (let i = listed >= 0 ? listed + 1 : 0; i < lines.length; i++) {
    const m = SPEC_FAIL.exec(lines[i]!);
    if (!m) continue;
    const depth = m[1]!.length;
    let j = i + 1;
    const body: string[] = [];
    while (j < lines.length) {
      const next = lines[j]!;
      if (!blank(next) && indent(next) <= depth) break;
      body.push(next);
      j++;
    }
    // A suite's ✖ line has nothing under it: its failing tests say what failed.
    if (body.every(blank)) continue;
    blocks.push({ from: i, to: j - 1, lines: [lines[i]!, ...withoutBookkeeping(keepLines(body))] });
    i = j - 1;
  }
  return { blocks, summary: testsAndFails(lines, "ℹ") };
};

/**
 * Of the properties node prints after an error's stack (`{ generatedMessage: true, code: ...,
 * actual: -1, expected: 3 }`), the values.
 */
function withoutBookkeeping(lines: readonly string[]): string[] {
  let lastFrame = -1;
  for (const [i, line] of lines.entries()) if (FRAME.test(line)) lastFrame = i;
  return lines.filter((l, i) => i <= lastFrame || !(/^\s*(generatedMessage|code|operator):/.test(l) || /^\s*[{}]\s*$/.test(l)));
}

// ---------------------------------------------------------------------------------------------
// vitest and jest

/** vitest's header of a failed test (`FAIL  file > suite > test`) or file (`FAIL  file [ file ]`). */
const vitestFail = (line: string) => /^\s*FAIL\s+\S/.test(line) && (/\s>\s/.test(line) || (line.includes("[ ") && / \]$/.test(line)));
/** What ends a failure in vitest's report: its `⎯⎯[1/2]⎯` rule, a heading, or the summary. */
const VITEST_END = /^\s*⎯|^\s*(Test Files|Tests)\s+\d|^\s*FAIL\s/;

const readVitest: Reader = (lines) => {
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!vitestFail(lines[i]!)) continue;
    let j = i + 1;
    while (j < lines.length && !VITEST_END.test(lines[j]!) && !PASSING.test(lines[j]!)) j++;
    blocks.push({ from: i, to: j - 1, lines: [lines[i]!.trim(), ...keepLines(lines.slice(i + 1, j))] });
    i = j - 1;
  }
  // A file that failed to load has no tests to count; its file does.
  return { blocks, summary: countLine(lines, /^\s*Tests\s+\d+ failed/) ?? countLine(lines, /^\s*Test Files\s+\d+ failed/) };
};

/** jest's header of a failure: `● suite › test`, or `● Test suite failed to run`. */
const JEST_FAIL = /^(\s*)● (?!Console$)(.*)$/;

const readJest: Reader = (lines) => {
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const m = JEST_FAIL.exec(lines[i]!);
    if (!m) continue;
    const depth = m[1]!.length;
    let j = i + 1;
    while (j < lines.length) {
      const next = lines[j]!;
      if (!blank(next) && (indent(next) <= depth || PASSING.test(next))) break;
      j++;
    }
    blocks.push({ from: i, to: j - 1, lines: [lines[i]!.trim(), ...keepLines(lines.slice(i + 1, j))] });
    i = j - 1;
  }
  return { blocks, summary: countLine(lines, /^Tests:\s+\d+ failed/) };
};

/**
 * A test list's failing entries (`× adds`, `✕ adds`), for when a runner's detailed report of them
 * is not in the output; chooseBlocks takes them only then.
 */
const readMarks: Reader = (lines) => {
  const blocks: Block[] = [];
  for (const [i, line] of lines.entries()) {
    if (/^\s*[×✕✗]\s+\S/.test(line)) blocks.push({ from: i, to: i, lines: [line.trim()] });
  }
  return { blocks };
};

// ---------------------------------------------------------------------------------------------
// pytest

/** `=== FAILURES ===`, `=== short test summary info ===`, `=== 3 failed, 2 passed in 2.03s ===`. */
const PYTEST_RULE = /^=+ (.+?) =+$/;
/** A failure's header: `____ test_adds ____`. */
const PYTEST_HEADER = /^_{3,} (.+?) _{3,}$/;

const readPytest: Reader = (lines) => {
  const blocks: Block[] = [];
  let section = "";
  let summary: Count | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const rule = PYTEST_RULE.exec(line);
    if (rule) {
      section = rule[1]!;
      if (section.length < 200 && /\b\d+ (failed|errors?)\b.* in [\d.]+s/.test(section)) summary = { at: i, text: section };
      continue;
    }
    if (section === "short test summary info" && /^(FAILED|ERROR) \S/.test(line)) {
      blocks.push({ from: i, to: i, lines: [line], lead: true });
      continue;
    }
    if (!/^(FAILURES|ERRORS)$/.test(section) || !PYTEST_HEADER.test(line)) continue;
    let j = i + 1;
    while (j < lines.length && !PYTEST_HEADER.test(lines[j]!) && !PYTEST_RULE.test(lines[j]!)) j++;
    blocks.push({ from: i, to: j - 1, lines: [line, ...pytestLines(lines.slice(i + 1, j))] });
    i = j - 1;
  }
  return { blocks, summary };
};

/** Where a frame of pytest's report is: `test_calc.py:9: AssertionError`, `calc.py:2: in add`. */
const PYTEST_WHERE = /^[^\s:][^:]*:\d+:(\s|$)/;
/** A frame inside Python itself or an installed package. */
const PYTHON_INTERNAL = /(^|[/\\])(lib[/\\]python[\d.]*|site-packages|dist-packages)[/\\]/;

/**
 * Of a pytest failure: the failing line of each frame, the error and its explanation, and where
 * each frame is, but for frames inside Python and installed packages (their error lines stay).
 */
function pytestLines(body: readonly string[]): string[] {
  const kept: string[] = [];
  let frame: string[] = [];
  for (const line of body) {
    if (/^>\s/.test(line) || (/^E\s/.test(line) && !/^E\s*$/.test(line))) frame.push(line);
    else if (PYTEST_WHERE.test(line)) {
      kept.push(...(PYTHON_INTERNAL.test(line) ? frame.filter((l) => l.startsWith("E")) : [...frame, line]));
      frame = [];
    }
  }
  return [...kept, ...frame];
}

// ---------------------------------------------------------------------------------------------
// JUnit XML

const readJunit: Reader = (lines) => {
  const blocks: Block[] = [];
  const text = lines.join("\n");
  if (!/<testcase\b/.test(text)) return { blocks };
  const failure = /<(failure|error)\b([^>]*?)(?:\/>|>([\s\S]*?)<\/\1>)/g;
  for (let m = failure.exec(text); m !== null; m = failure.exec(text)) {
    const from = lineAt(text, m.index);
    const to = lineAt(text, m.index + m[0].length);
    const testcase = text.lastIndexOf("<testcase", m.index);
    const attrs = testcase >= 0 ? text.slice(testcase, text.indexOf(">", testcase)) : "";
    const name = [attribute(attrs, "classname"), attribute(attrs, "name")].filter((s) => s !== undefined).join(" > ");
    const message = attribute(m[2]!, "message") ?? "";
    const type = attribute(m[2]!, "type");
    const head = `${m[1] === "error" ? "ERROR" : "FAIL"} ${name || "(unnamed test)"}`;
    const body = unescapeXml(m[3] ?? "").split("\n");
    // pytest's report says it all in its `E` lines; others' message comes first, then what the body adds.
    if (body.some((l) => /^E\s/.test(l))) {
      blocks.push({ from, to, lines: [head, ...pytestLines(body)] });
      continue;
    }
    const messageLines = message.split("\n").filter((l) => !blank(l));
    const bodyLines = keepLines(body).filter((l) => !messageLines.some((ml) => l.trim() === ml.trim() || l.trim() === `${type}: ${ml.trim()}`));
    const lead = messageLines.map((l, k) => (k === 0 && type && !l.startsWith(type) ? `${type}: ${l}` : l));
    blocks.push({ from, to, lines: [head, ...lead, ...bodyLines] });
  }
  return { blocks };
};

function attribute(tag: string, name: string): string | undefined {
  const m = new RegExp(`\\s${name}="([^"]*)"`).exec(tag) ?? new RegExp(`\\s${name}='([^']*)'`).exec(tag);
  return m ? unescapeXml(m[1]!) : undefined;
}

function unescapeXml(text: string): string {
  return text
    .replace(/<!\[CDATA\[([\s\S]*?)\]\]>/g, "$1")
    .replace(/&#x([0-9a-f]+);/gi, (_, h: string) => String.fromCodePoint(parseInt(h, 16)))
    .replace(/&#(\d+);/g, (_, d: string) => String.fromCodePoint(Number(d)))
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, "&");
}

function lineAt(text: string, index: number): number {
  let n = 0;
  for (let i = text.indexOf("\n"); i !== -1 && i < index; i = text.indexOf("\n", i + 1)) n++;
  return n;
}

// ---------------------------------------------------------------------------------------------
// tsc

/** `file(3,7): error TS2322: ...`, `file:3:7 - error TS2322: ...` (--pretty), `error TS5058: ...`. */
const TSC_ERROR = /^(?:\S.*\(\d+,\d+\): |\S.*:\d+:\d+ - )?error TS\d+:(\s|$)/;

const readTsc: Reader = (lines) => {
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!TSC_ERROR.test(lines[i]!)) continue;
    // Its explanation, indented under it; --pretty's code frame: the line and the squiggle under it.
    let j = i + 1;
    const more: string[] = [];
    while (j < lines.length && !TSC_ERROR.test(lines[j]!) && (blank(lines[j]!) || /^\s/.test(lines[j]!) || /^\d+\s/.test(lines[j]!))) {
      if (!blank(lines[j]!)) more.push(lines[j]!);
      j++;
    }
    blocks.push({ from: i, to: j - 1, lines: [lines[i]!, ...more] });
    i = j - 1;
  }
  return { blocks, summary: countLine(lines, /^Found \d+ errors?\b/) };
};

// ---------------------------------------------------------------------------------------------
// eslint (stylish)

/** `  4:11  error  Expected '===' and instead saw '=='  eqeqeq` */
const ESLINT_PROBLEM = /^\s+\d+:\d+\s+(error|warning)\s+\S/;

const readEslint: Reader = (lines) => {
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const file = lines[i]!;
    if (blank(file) || /^\s/.test(file) || !ESLINT_PROBLEM.test(lines[i + 1] ?? "")) continue;
    let j = i + 1;
    while (j < lines.length && ESLINT_PROBLEM.test(lines[j]!)) j++;
    const problems = lines.slice(i + 1, j);
    // Errors fail the run; a file's warnings follow them.
    const ordered = [...problems.filter((l) => /^\s+\S+\s+error\s/.test(l)), ...problems.filter((l) => /^\s+\S+\s+warning\s/.test(l))];
    blocks.push({ from: i, to: j - 1, lines: [file, ...ordered] });
    i = j - 1;
  }
  return { blocks, summary: countLine(lines, /^✖ \d+ problems? \(/) };
};

// ---------------------------------------------------------------------------------------------
// Putting it together

/** Most specific first: where two readers claim the same lines, the first one's reading stands. */
const READERS: readonly Reader[] = [readJunit, readPytest, readVitest, readJest, readNodeSpec, readTap, readTsc, readEslint];

/**
 * Each reader's blocks (in READERS' order) that claim no line an earlier reader's block claimed,
 * leading ones first, then in output order.
 */
function chooseBlocks(byReader: readonly (readonly Block[])[]): Block[] {
  const chosen: Block[] = [];
  for (const blocks of byReader) {
    const earlier = [...chosen];
    for (const block of blocks) {
      if (earlier.some((c) => block.from <= c.to && c.from <= block.to)) continue;
      chosen.push(block);
    }
  }
  return chosen.sort((a, b) => Number(b.lead ?? false) - Number(a.lead ?? false) || a.from - b.from);
}

/** A block's lines without the indentation its first line has (a nested test's). */
function dedent(lines: readonly string[]): string[] {
  const depth = indent(lines[0] ?? "");
  return lines.map((l) => (indent(l) >= depth ? l.slice(depth) : l.trimStart()));
}

/**
 * The blocks within MAX_LINES and MAX_CHARS: leading ones as single lines, then each failure (at
 * most MAX_BLOCK_LINES of it) after a blank line, then the runners' counts; what did not fit is
 * said to be left out.
 */
function assemble(blocks: readonly Block[], counts: readonly Count[]): string {
  const tailLines = counts.slice(0, 2).map((c) => clip(c.text));
  // Room kept for a line saying what was left out.
  const MARK = 80;
  const maxLines = MAX_LINES - tailLines.length - (tailLines.length > 0 ? 1 : 0) - 1;
  const maxChars = MAX_CHARS - tailLines.reduce((n, l) => n + l.length + 1, 1) - MARK;
  const out: string[] = [];
  let chars = 0;
  const fits = (line: string) => out.length < maxLines && chars + line.length + 1 <= maxChars;
  const push = (line: string) => {
    out.push(line);
    chars += line.length + 1;
  };

  let shown = 0;
  for (const block of blocks) {
    const lines = dedent(block.lines).map(clip);
    // One-line failures (a compiler's errors, pytest's summary) go line after line; others apart.
    const separate = out.length > 0 && (lines.length > 1 || blocks[shown - 1]!.lines.length > 1);
    if (separate && !fits("")) break;
    // A failure is shown with at least its first two lines, or not at all.
    const before = out.length;
    if (separate) push("");
    const limit = Math.min(lines.length, MAX_BLOCK_LINES);
    let n = 0;
    while (n < limit && fits(lines[n]!)) push(lines[n++]!);
    if (n < Math.min(2, lines.length)) {
      chars -= out.splice(before).reduce((k, l) => k + l.length + 1, 0);
      break;
    }
    // The block's own mark goes in place of its last line shown when there is no room for both.
    if (n < lines.length) {
      if (out.length >= maxLines) chars -= out.pop()!.length + 1;
      const cut = lines.length - out.length + before + (separate ? 1 : 0);
      push(`[${cut} more ${cut === 1 ? "line" : "lines"} of this failure omitted]`);
    }
    shown++;
  }
  const left = blocks.length - shown;
  if (left > 0) out.push(`[${left} more ${left === 1 ? "failure" : "failures"} omitted]`);
  if (tailLines.length > 0) out.push("", ...tailLines);
  return out.join("\n");
}

function clip(line: string): string {
  return line.length <= MAX_LINE_CHARS ? line : `${line.slice(0, MAX_LINE_CHARS - 1)}…`;
}
