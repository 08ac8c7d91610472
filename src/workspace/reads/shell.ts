/**
 * Shell command lines and scripts, read as /bin/sh would split them, to find the files they name:
 * a tokenizer (words with quotes and escapes removed, operators, redirections, here-documents,
 * command substitutions) and an evaluator that walks the simple commands in order, keeping track
 * of what changes how later words resolve (`cd DIR`, `NAME=value`, `export`), and says what each
 * command runs: a script given to `sh`/`bash`, a file sourced with `.`/`source`, a program given to
 * `node` or `python`, a command string given to `sh -c`.
 *
 * No shell parser on the npm registry fits: the maintained ones (bash-parser, mvdan-sh's JS build)
 * are unmaintained, huge, or do not keep quoting apart from expansion, which is what decides here
 * whether a word can be resolved at all. This small tokenizer follows the POSIX token rules that
 * matter for that (quotes, backslashes, `$` expansions, operators, comments, here-documents); what
 * it cannot know (a variable set by the environment, a glob, the output of a command) makes the
 * word unresolvable, never a wrong file.
 */

/** A piece of a word: literal text, a variable's value, the running script's directory, or a value only the shell knows. */
export type Part = { text: string } | { variable: string } | { scriptDir: true } | { unknown: true };

export interface Word {
  parts: Part[];
  /** Where the word stands after a redirection: `>` (a file written), `<` (a file read), `<<` (a here-document's delimiter), `&` (a descriptor). */
  after?: ">" | "<" | "<<" | "&";
  /** Command substitutions inside the word: they run too, in a subshell. */
  substitutions?: Token[][];
  /** Whether the word starts with an unquoted `NAME=`: an assignment when it comes before the command's name. */
  assignment?: string;
}

export type Token = { word: Word } | { op: string };

/** Operators that separate commands. */
const SEPARATORS = new Set([";", "&", "&&", "|", "||", "\n", ";;", "|&"]);
/** Unquoted characters that make a word a pattern or an expansion the shell decides. */
const GLOB = new Set(["*", "?", "[", "]", "{", "}"]);
/** Characters a backslash escapes inside double quotes. */
const DOUBLE_QUOTED_ESCAPES = new Set(["$", "`", '"', "\\", "\n"]);
/** How scripts name their own directory: each stands for the directory of the file that holds it. */
const SCRIPT_DIR_FORMS = [
  '$(dirname "$0")',
  "$(dirname $0)",
  '$(dirname -- "$0")',
  '$(cd "$(dirname "$0")" && pwd)',
  '$(cd "$(dirname "$0")"; pwd)',
  "${0%/*}",
  '$(dirname "${BASH_SOURCE[0]}")',
  '$(dirname "$BASH_SOURCE")',
  '$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)',
  "${BASH_SOURCE%/*}",
  "${BASH_SOURCE[0]%/*}",
];
/** The commands of those forms that are a command substitution, which scripts also write in backquotes: `` `dirname "$0"` ``. */
const SCRIPT_DIR_COMMANDS = new Set(SCRIPT_DIR_FORMS.filter((f) => f.startsWith("$(")).map((f) => f.slice(2, -1)));
const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;
const NAME_ONLY = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** A command substitution nested deeper than this is not looked into. */
const MAX_NESTING = 16;

/** The tokens of a shell text. */
export function shellTokens(text: string): Token[] {
  return new Tokenizer(text, 0).tokens();
}

class Tokenizer {
  private i = 0;
  private readonly out: Token[] = [];
  private parts: Part[] = [];
  private literal = "";
  private started = false;
  private substitutions: Token[][] = [];
  private after: Word["after"];
  /** Here-documents whose bodies start at the next newline: their delimiters, and whether leading tabs are stripped. */
  private heredocs: { delimiter: string; tabs: boolean }[] = [];
  private heredocNext: boolean | undefined;
  /** The word so far is plain characters only, and the name of the assignment it starts with, if it does. */
  private plain = true;
  private assignment: string | undefined;

  constructor(
    private readonly text: string,
    private readonly depth: number,
  ) {}

  tokens(): Token[] {
    const t = this.text;
    while (this.i < t.length) {
      const c = t[this.i]!;
      if (c === "\\") {
        const next = t[this.i + 1];
        this.i += 2;
        if (next === "\n") continue; // a line continuation
        this.started = true;
        this.plain = false;
        this.literal += next ?? "";
      } else if (c === " " || c === "\t" || c === "\r") {
        this.endWord();
        this.i++;
      } else if (c === "\n") {
        this.endWord();
        this.out.push({ op: "\n" });
        this.i++;
        this.skipHeredocs();
      } else if (c === "#" && !this.started) {
        const newline = t.indexOf("\n", this.i);
        this.i = newline === -1 ? t.length : newline;
      } else if (c === "'") {
        this.started = true;
        this.plain = false;
        const close = t.indexOf("'", this.i + 1);
        if (close === -1) return this.unclosed();
        this.literal += t.slice(this.i + 1, close);
        this.i = close + 1;
      } else if (c === '"') {
        this.started = true;
        this.plain = false;
        if (!this.doubleQuoted()) return this.unclosed();
      } else if (c === "$") {
        this.started = true;
        this.plain = false;
        this.dollar();
      } else if (c === "`") {
        this.started = true;
        this.plain = false;
        this.backquoted();
      } else if (";&|<>()".includes(c)) {
        this.endWord();
        this.operator();
      } else {
        if (c === "=" && this.assignment === undefined && this.plain && NAME_ONLY.test(this.literal)) this.assignment = this.literal;
        if (GLOB.has(c) || (c === "~" && !this.started)) this.unknown();
        else this.literal += c;
        this.started = true;
        this.i++;
      }
    }
    this.endWord();
    return this.out;
  }

  private operator(): void {
    const t = this.text;
    const three = t.slice(this.i, this.i + 3);
    const two = t.slice(this.i, this.i + 2);
    const op = three === "<<-" || three === "<<<" ? three : ["&&", "||", ";;", ">>", ">|", "&>", "<&", ">&", "<>", "<<", "|&"].includes(two) ? two : t[this.i]!;
    this.i += op.length;
    if (op === "<<" || op === "<<-") {
      this.after = "<<";
      this.heredocNext = op === "<<-";
    } else if (op === "<&" || op === ">&") this.after = "&";
    else if (op === "<" || op === "<>") this.after = "<";
    else if (op === "<<<")
      this.after = "&"; // a here-string: text, not a file
    else if (op.includes(">")) this.after = ">";
    else this.out.push({ op });
  }

  /** Inside double quotes, from the opening quote; false when the quote never closes. */
  private doubleQuoted(): boolean {
    const t = this.text;
    for (this.i++; this.i < t.length;) {
      const q = t[this.i]!;
      if (q === '"') {
        this.i++;
        return true;
      }
      if (q === "\\" && DOUBLE_QUOTED_ESCAPES.has(t[this.i + 1] ?? "")) {
        if (t[this.i + 1] !== "\n") this.literal += t[this.i + 1];
        this.i += 2;
      } else if (q === "$") this.dollar();
      else if (q === "`") this.backquoted();
      else {
        this.literal += q;
        this.i++;
      }
    }
    return false;
  }

  /** A `$` expansion, from the `$`. */
  private dollar(): void {
    const t = this.text;
    const form = SCRIPT_DIR_FORMS.find((f) => t.startsWith(f, this.i));
    if (form) {
      this.push({ scriptDir: true });
      this.i += form.length;
      return;
    }
    const next = t[this.i + 1];
    if (next === "(") {
      const end = closing(t, this.i + 1, "(", ")");
      const arithmetic = t[this.i + 2] === "(";
      if (!arithmetic && this.depth < MAX_NESTING) this.substitutions.push(new Tokenizer(t.slice(this.i + 2, end - 1), this.depth + 1).tokens());
      this.unknown();
      this.i = end;
      return;
    }
    if (next === "{") {
      const end = closing(t, this.i + 1, "{", "}");
      const name = t.slice(this.i + 2, end - 1);
      this.push(NAME.test(name) && NAME.exec(name)![0] === name ? { variable: name } : { unknown: true });
      this.i = end;
      return;
    }
    const name = NAME.exec(t.slice(this.i + 1, this.i + 256))?.[0];
    if (name !== undefined) {
      this.push({ variable: name });
      this.i += 1 + name.length;
    } else if (next !== undefined && /[0-9@*#?$!-]/.test(next)) {
      this.unknown();
      this.i += 2;
    } else {
      this.literal += "$"; // a lone dollar sign is itself
      this.i++;
    }
  }

  private backquoted(): void {
    const t = this.text;
    let end = this.i + 1;
    while (end < t.length && t[end] !== "`") end += t[end] === "\\" ? 2 : 1;
    const command = t.slice(this.i + 1, end).replace(/\\([$`\\])/g, "$1");
    this.i = Math.min(end + 1, t.length);
    if (end < t.length && SCRIPT_DIR_COMMANDS.has(command.trim())) return this.push({ scriptDir: true });
    if (this.depth < MAX_NESTING) this.substitutions.push(new Tokenizer(command, this.depth + 1).tokens());
    this.unknown();
  }

  private push(part: Part): void {
    if (this.literal !== "") this.parts.push({ text: this.literal });
    this.literal = "";
    this.parts.push(part);
  }

  private unknown(): void {
    this.push({ unknown: true });
  }

  private unclosed(): Token[] {
    this.unknown();
    this.endWord();
    return this.out;
  }

  private reset(): void {
    this.parts = [];
    this.literal = "";
    this.started = false;
    this.substitutions = [];
    this.plain = true;
    this.assignment = undefined;
  }

  private endWord(): void {
    if (this.started) {
      if (this.literal !== "") this.parts.push({ text: this.literal });
      const word: Word = { parts: this.parts };
      if (this.after) word.after = this.after;
      if (this.substitutions.length > 0) word.substitutions = this.substitutions;
      if (this.assignment !== undefined) word.assignment = this.assignment;
      this.out.push({ word });
      if (this.after === "<<" && this.heredocNext !== undefined) {
        const delimiter = this.parts.map((p) => ("text" in p ? p.text : "")).join("");
        this.heredocs.push({ delimiter, tabs: this.heredocNext });
        this.heredocNext = undefined;
      }
      this.after = undefined;
    }
    this.reset();
  }

  /** After a newline: the bodies of the here-documents opened on the line before, skipped. */
  private skipHeredocs(): void {
    const t = this.text;
    for (const { delimiter, tabs } of this.heredocs) {
      for (;;) {
        if (this.i >= t.length) break;
        const newline = t.indexOf("\n", this.i);
        const end = newline === -1 ? t.length : newline;
        let line = t.slice(this.i, end);
        if (tabs) line = line.replace(/^\t+/, "");
        this.i = end === t.length ? end : end + 1;
        if (line === delimiter) break;
      }
    }
    this.heredocs = [];
  }
}

/** The index just past the bracket closing the one at `open`, with nested pairs and quotes skipped; the end of the text if it never closes. */
function closing(text: string, open: number, opener: string, closer: string): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text[i]!;
    if (c === "\\") i++;
    else if (c === "'") {
      const close = text.indexOf("'", i + 1);
      if (close === -1) return text.length;
      i = close;
    } else if (c === '"') {
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === "\\") i++;
    } else if (c === opener) depth++;
    else if (c === closer && --depth === 0) return i + 1;
  }
  return text.length;
}

/** The value of a word, or undefined when the shell alone can know it. */
export function expand(word: Word, vars: ReadonlyMap<string, string>, scriptDir: string | undefined): string | undefined {
  let value = "";
  for (const part of word.parts) {
    if ("text" in part) value += part.text;
    else if ("variable" in part) {
      const v = vars.get(part.variable);
      if (v === undefined) return undefined;
      value += v;
    } else if ("scriptDir" in part && scriptDir !== undefined) value += scriptDir;
    else return undefined;
  }
  return value;
}

/** Whether the token separates commands. */
export function isSeparator(token: Token): boolean {
  return "op" in token && SEPARATORS.has(token.op);
}

/**
 * The words of a shell command line that may name files, as the shell would pass them: quotes and
 * backslashes removed; options (`-x`, `--x=y`), comments, operators, the targets of output
 * redirections (`> log.txt`) and here-document delimiters left out, and so are words whose value
 * depends on the shell (`$VAR`, `$(...)`, globs, a leading `~`, unclosed quotes).
 */
export function commandWords(command: string): string[] {
  const words: string[] = [];
  for (const token of shellTokens(command)) {
    if (!("word" in token) || token.word.after === ">" || token.word.after === "<<") continue;
    const value = expand(token.word, new Map(), undefined);
    if (value !== undefined && value !== "" && !value.startsWith("-")) words.push(value);
  }
  return words;
}
