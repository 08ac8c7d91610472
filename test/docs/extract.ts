/**
 * The examples of a Markdown page, as test/docs/examples.test.ts checks them (CONTRIBUTING.md, "The
 * docs"): its fenced blocks, each with the markers of the HTML comments just above it, and what a
 * command's shown output is compared by.
 */

export interface Markers {
  /** `<!-- fragment: why -->`: part of a file or an output, not something to run. */
  fragment?: string;
  /** `<!-- before: COMMAND -->`: commands that put the scratch repository in the state the text describes. */
  before: string[];
  /** `<!-- status: N -->`: the exit status the command is expected to end with. */
  status?: number;
  /** `<!-- in: DIR -->`: the directory of the scratch repository the commands run in (default: its root). */
  in?: string;
  /** `<!-- json-of: COMMAND -->`: a JSON block is (a part of) what COMMAND prints on stdout. */
  jsonOf?: string;
}

export interface Block {
  /** The line of the opening fence, from 1. */
  line: number;
  lang: string;
  /** The block's text, its fence's indentation removed, ending with a newline. */
  text: string;
  markers: Markers;
}

const FENCE = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)/;
const MARKER = /^<!--\s*(fragment|before|status|in|json-of)\b:?\s*([\s\S]*?)\s*-->$/;

/** The fenced blocks of a page, outside its generated parts, with their markers. */
export function blocks(markdown: string): Block[] {
  const lines = markdown.split("\n");
  const found: Block[] = [];
  let generated = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^<!-- generated:/.test(line)) generated = true;
    if (/^<!-- \/generated:/.test(line)) generated = false;
    const open = FENCE.exec(line);
    if (!open) continue;
    const [, indent, fence, lang] = open;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const inner = lines[j]!;
      if (inner.trim().startsWith(fence!) && inner.trim().replace(/[`~]/g, "") === "") break;
      body.push(inner.startsWith(indent!) ? inner.slice(indent!.length) : inner.trimStart());
    }
    if (!generated) found.push({ line: i + 1, lang: lang!.toLowerCase(), text: body.join("\n") + "\n", markers: markersAbove(lines, i) });
    i = j;
  }
  return found;
}

/** The markers of the HTML comments right above line `at` (blank lines between allowed). */
function markersAbove(lines: string[], at: number): Markers {
  const markers: Markers = { before: [] };
  for (let k = at - 1; k >= 0; k--) {
    const text = lines[k]!.trim();
    if (text === "") continue;
    const m = MARKER.exec(text);
    if (!m) break;
    if (m[1] === "fragment") markers.fragment = m[2] || "fragment";
    else if (m[1] === "before") markers.before.unshift(m[2]!);
    else if (m[1] === "in") markers.in = m[2];
    else if (m[1] === "json-of") markers.jsonOf = m[2];
    else markers.status = Number(m[2]);
  }
  return markers;
}

/** A block's shell commands: a line ending in `\` continued on the next, blank and comment lines dropped. */
export function commands(text: string): string[] {
  const out: string[] = [];
  let current = "";
  for (const raw of text.split("\n")) {
    const line = current === "" ? raw.trim() : raw;
    if (current === "" && (line === "" || line.startsWith("#"))) continue;
    if (line.endsWith("\\")) {
      current += line + "\n";
      continue;
    }
    out.push(current + line);
    current = "";
  }
  if (current !== "") out.push(current);
  return out;
}

/** A block that shows a command and what it printed: `$ command` first, then the output. */
export function session(text: string): { command: string; output: string[] } | undefined {
  if (!text.startsWith("$ ")) return undefined;
  const lines = text.trimEnd().split("\n");
  let command = lines[0]!.slice(2);
  let k = 1;
  while (command.endsWith("\\") && k < lines.length) command += "\n" + lines[k++];
  return { command, output: lines.slice(k) };
}

/**
 * A line of output as it is compared: what differs from run to run (times, run ids, hashes, numbers)
 * a placeholder, runs of spaces one space.
 */
export function normalize(line: string): string {
  return line
    .replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, "<time>")
    .replace(/\d{8}T\d{9}Z-[0-9a-f]+/g, "<run>")
    .replace(/\b(?=[0-9a-f]*\d)[0-9a-f]{7,64}\b/g, "<hash>")
    .replace(/\d[\d,]*(\.\d+)?/g, "<n>")
    .replace(/\s+/g, " ")
    .trim();
}

/**
 * The first line shown that the output lacks (in order, as placeholders), or undefined when every one
 * is there. Blank lines and `…` or `...` lines (output left out) are not compared; a line ending in `…`
 * or `...` stands for every line that starts as it does.
 */
export function missingLine(shown: string[], output: string): string | undefined {
  const actual = output.split("\n").map(normalize);
  let at = 0;
  for (const line of shown) {
    const want = normalize(line);
    if (want === "" || want === "…" || want === "...") continue;
    const prefix = /(\.\.\.|…)$/.test(want) ? want.replace(/\s*(\.\.\.|…)$/, "") : undefined;
    const found = prefix === undefined ? actual.indexOf(want, at) : actual.findIndex((a, i) => i >= at && a.startsWith(prefix));
    if (found < 0) return line;
    at = found + 1;
  }
  return undefined;
}

/**
 * Where a JSON example differs from what a command printed, or undefined when it is a part of it:
 * every key it shows is there, with a value of the same kind (a string in `<...>` stands for any
 * string, one ending in `...` any string that starts so; other strings, booleans and null compare
 * after `normalize`), and each element of a list
 * it shows matches some element of the printed list. Numbers compare by kind only.
 */
export function jsonMismatch(shown: unknown, printed: unknown, at = "$"): string | undefined {
  if (typeof shown === "string" && /^<[^>]+>$/.test(shown)) return typeof printed === "string" ? undefined : `${at}: a string, not ${JSON.stringify(printed)}`;
  if (Array.isArray(shown)) {
    if (!Array.isArray(printed)) return `${at}: a list, not ${JSON.stringify(printed)}`;
    for (const [i, element] of shown.entries()) {
      const misses = printed.map((p) => jsonMismatch(element, p, `${at}[${i}]`));
      if (!misses.includes(undefined)) return misses[0] ?? `${at}[${i}]: the printed list is empty`;
    }
    return undefined;
  }
  if (shown !== null && typeof shown === "object") {
    if (printed === null || typeof printed !== "object" || Array.isArray(printed)) return `${at}: an object, not ${JSON.stringify(printed)}`;
    for (const [key, value] of Object.entries(shown)) {
      if (!(key in printed)) return `${at}.${key}: not printed`;
      const miss = jsonMismatch(value, (printed as Record<string, unknown>)[key], `${at}.${key}`);
      if (miss !== undefined) return miss;
    }
    return undefined;
  }
  if (typeof shown === "number") return typeof printed === "number" ? undefined : `${at}: a number, not ${JSON.stringify(printed)}`;
  if (typeof shown === "string" && /(\.\.\.|…)$/.test(shown)) {
    const prefix = normalize(shown.replace(/\s*(\.\.\.|…)$/, ""));
    return typeof printed === "string" && normalize(printed).startsWith(prefix) ? undefined : `${at}: ${JSON.stringify(shown)}, not ${JSON.stringify(printed)}`;
  }
  return normalize(String(shown)) === normalize(String(printed)) && typeof shown === typeof printed
    ? undefined
    : `${at}: ${JSON.stringify(shown)}, not ${JSON.stringify(printed)}`;
}
