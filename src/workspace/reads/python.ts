/**
 * The modules a Python source imports: `import a.b as c, d`, `from a.b import c, d`,
 * `from . import x`, `from ..pkg import (y, z)`, and `importlib.import_module("a.b")` /
 * `__import__("a")` with a literal name, wherever they stand (inside a function, a `try`, an `if`).
 *
 * Python's own parser is not on the npm registry, and the JavaScript ones (tree-sitter's and
 * ANTLR's grammars) are native modules or megabytes of generated code for what is a handful of
 * statement forms. A tokenizer that knows Python's strings (prefixes, triple quotes, escapes),
 * comments, line continuations and brackets is enough to find them exactly: an import is a
 * statement whose first token is `import` or `from`, and nothing inside a string or a comment can
 * look like one.
 */

export interface PythonImport {
  /** The dotted module name after `import` or `from` (without the leading dots); "" for `from . import x`. */
  module: string;
  /** The number of leading dots: 0 for an absolute import. */
  level: number;
  /** The names after `from ... import` (each may be a submodule); empty for `import a.b`. */
  names: string[];
}

type Tok = { kind: "name" | "op" | "string" | "end"; value: string };

const STRING_PREFIX = /^(?:[rR]|[bB]|[uU]|[fF]|[rR][bB]|[bB][rR]|[rR][fF]|[fF][rR]|[tT]|[rR][tT]|[tT][rR])$/;
const IDENT_START = /[A-Za-z_\u0080-\uffff]/;
const IDENT = /[A-Za-z0-9_\u0080-\uffff]/;

/** Python's tokens that matter here: names, strings (their text when they are plain), operators, and statement ends. */
function tokens(source: string): Tok[] {
  const out: Tok[] = [];
  let depth = 0;
  let i = 0;
  const end = () => {
    if (out.length > 0 && out[out.length - 1]!.kind !== "end") out.push({ kind: "end", value: "" });
  };
  while (i < source.length) {
    const c = source[i]!;
    if (c === "#") {
      const newline = source.indexOf("\n", i);
      i = newline === -1 ? source.length : newline;
    } else if (c === "\\" && (source[i + 1] === "\n" || (source[i + 1] === "\r" && source[i + 2] === "\n"))) {
      i += source[i + 1] === "\n" ? 2 : 3; // a line continuation
    } else if (c === "\n") {
      if (depth === 0) end();
      i++;
    } else if (c === " " || c === "\t" || c === "\r" || c === "\f") {
      i++;
    } else if (c === '"' || c === "'") {
      i = string(source, i, "", out);
    } else if (IDENT_START.test(c)) {
      let j = i + 1;
      while (j < source.length && IDENT.test(source[j]!)) j++;
      const word = source.slice(i, j);
      if ((source[j] === '"' || source[j] === "'") && STRING_PREFIX.test(word)) i = string(source, j, word.toLowerCase(), out);
      else {
        out.push({ kind: "name", value: word });
        i = j;
      }
    } else {
      if ("([{".includes(c)) depth++;
      else if (")]}".includes(c)) depth = Math.max(0, depth - 1);
      // `;` ends a statement; so does `:` outside brackets (`if x: import y`, `try: import z`).
      if (depth === 0 && (c === ";" || c === ":")) end();
      else out.push({ kind: "op", value: c });
      i++;
    }
  }
  end();
  return out;
}

/** A string literal from its opening quote; pushes its text when it is plain (no f-string, no bytes). */
function string(source: string, at: number, prefix: string, out: Tok[]): number {
  const quote = source[at]!;
  const triple = source.startsWith(quote.repeat(3), at);
  const delimiter = triple ? quote.repeat(3) : quote;
  const raw = prefix.includes("r");
  let i = at + delimiter.length;
  let text = "";
  while (i < source.length) {
    const c = source[i]!;
    if (c === "\\") {
      const next = source[i + 1] ?? "";
      text += raw ? c + next : (ESCAPES[next] ?? c + next);
      i += 2;
    } else if (source.startsWith(delimiter, i)) {
      i += delimiter.length;
      break;
    } else if (c === "\n" && !triple) {
      break; // unterminated: the line ends it
    } else {
      text += c;
      i++;
    }
  }
  out.push({ kind: "string", value: prefix.includes("f") || prefix.includes("b") || prefix.includes("t") ? "\0" : text });
  return i;
}

const ESCAPES: Record<string, string> = { "\\": "\\", "'": "'", '"': '"', n: "\n", t: "\t", r: "\r", "\n": "" };

/** Every import of the source, in order. */
export function pythonImports(source: string): PythonImport[] {
  const toks = tokens(source);
  const found: PythonImport[] = [];
  let start = true;
  for (let i = 0; i < toks.length; i++) {
    const t = toks[i]!;
    if (t.kind === "end") {
      start = true;
      continue;
    }
    const atStart = start;
    start = false;
    if (t.kind === "name" && (t.value === "import_module" || t.value === "__import__")) {
      const [open, name, close] = [toks[i + 1], toks[i + 2], toks[i + 3]];
      if (open?.value === "(" && name?.kind === "string" && (close?.value === ")" || close?.value === ",") && /^[\w.]+$/.test(name.value)) {
        const level = /^\.*/.exec(name.value)![0].length;
        found.push({ module: name.value.slice(level), level, names: [] });
      }
      continue;
    }
    if (!atStart || t.kind !== "name") continue;
    if (t.value === "import") {
      // import a.b as c, d
      let j = i + 1;
      for (;;) {
        const dotted = dottedName(toks, j);
        if (dotted === undefined) break;
        found.push({ module: dotted.name, level: 0, names: [] });
        j = dotted.next;
        if (toks[j]?.kind === "name" && toks[j]!.value === "as") j += 2;
        if (toks[j]?.value !== ",") break;
        j++;
      }
    } else if (t.value === "from") {
      let j = i + 1;
      let level = 0;
      while (toks[j]?.kind === "op" && toks[j]!.value === ".") {
        level++;
        j++;
      }
      const dotted = toks[j]?.value === "import" ? undefined : dottedName(toks, j);
      if (dotted) j = dotted.next;
      if (toks[j]?.kind !== "name" || toks[j]!.value !== "import") continue;
      if (dotted === undefined && level === 0) continue;
      j++;
      const names: string[] = [];
      if (toks[j]?.value === "(") j++;
      while (toks[j]?.kind === "name") {
        names.push(toks[j]!.value);
        j++;
        if (toks[j]?.kind === "name" && toks[j]!.value === "as") j += 2;
        if (toks[j]?.value !== ",") break;
        j++;
      }
      found.push({ module: dotted?.name ?? "", level, names });
    }
  }
  return found;
}

/** `a.b.c` from toks[at]: its text and the index after it; undefined when no name is there. */
function dottedName(toks: Tok[], at: number): { name: string; next: number } | undefined {
  if (toks[at]?.kind !== "name") return undefined;
  const parts = [toks[at]!.value];
  let j = at + 1;
  while (toks[j]?.value === "." && toks[j]!.kind === "op" && toks[j + 1]?.kind === "name") {
    parts.push(toks[j + 1]!.value);
    j += 2;
  }
  return { name: parts.join("."), next: j };
}
