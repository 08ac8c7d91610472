/**
 * Taking secrets out of text before it leaves pairflow. What a command printed (a guard's feedback,
 * a generator's stderr) goes into the next attempt's prompt, to a model provider, into run records,
 * the job log, the job summary and the pull request comment. A command can read only what it was
 * given, but code a model wrote may print whatever it finds: every secret pairflow knows of is
 * replaced by `***` first, as it is and in the encodings a line of shell or a print statement makes
 * without effort (docs/security.md lists them, and what no redaction can promise).
 */
export type Redact = (text: string) => string;

/** Shorter values are not taken for secrets: replacing every "true" or "main" would garble the text. */
export const MIN_SECRET_LENGTH = 6;

export const REDACTED = "***";

/** Secrets longer than this many characters are looked for in pieces of this length (piecesOf). */
export const PIECE_LENGTH = 64;

/**
 * The most a base64 token holding gzip data may inflate to and still be read: a token that inflates
 * to more cannot be looked into, so it is replaced whole, as if it held a secret.
 */
export const GZIP_INFLATED_LIMIT = 1024 * 1024;

/**
 * Inflates gzip data, to at most `limit` bytes: what it inflates to as far as it goes (data cut
 * short, or going on after its end, still gives what it has), or "too large" beyond the limit.
 */
export type Gunzip = (data: Uint8Array, limit: number) => Uint8Array | "too large";

/** Leaves text as it is. */
export const noRedaction: Redact = (text) => text;

/**
 * One way a secret may be printed: a sequence of units, each a regular expression for one of its
 * characters or bytes as printed, and the length of its plainest printing (longer forms go first,
 * so a secret that contains another is replaced whole).
 */
interface Form {
  kind: "characters" | "reversed" | "hex" | "base64";
  units: string[];
  length: number;
  /** Whether the units may also stand apart, with the same separator between each two. */
  separable: boolean;
}

/**
 * How many forms one pattern holds. V8 skips quickly through text where no alternative of a
 * pattern can start; the more alternatives, the less it can skip: one pattern of every form of ten
 * secrets is ten times slower than patterns of four, and one of each four times slower again.
 */
const FORMS_PER_PATTERN = 4;

/** A line break, as `fold` or a wrapped log line puts it anywhere. */
const BREAK = "(?:\\r?\\n)?";

/**
 * A function that replaces each of `secrets` in a text by `***`, also printed:
 * - with line breaks anywhere inside it (`fold`, a wrapped log line);
 * - with any of its characters percent-encoded (every byte, or as `encodeURIComponent` does, `+` for a
 *   space) or JSON-escaped (`\uXXXX` of every character, or as `JSON.stringify` does);
 * - with the same separator of one to four characters between all its characters (`s e c r e t`,
 *   `s-e-c`, one character a line, `['s', 'e', ...]`);
 * - reversed (`rev`), also with a separator;
 * - as the hex of its UTF-8 bytes, in either case, also with a separator between bytes (`xxd`, `od`);
 * - as base64 at any of the three alignments it can have in a longer base64 text (`echo $T | base64`);
 * - inside gzip data written as one base64 token (`echo $T | gzip | base64`), in any of these forms:
 *   the whole token is replaced (given `gunzip`, which the model layer cannot do itself).
 */
export function redactor(secrets: Iterable<string>, gunzip?: Gunzip): Redact {
  const forms: Form[] = [];
  const seen = new Set<string>();
  for (const secret of secrets) {
    for (const value of new Set([secret, secret.trim()])) {
      if (value.length < MIN_SECRET_LENGTH) continue;
      for (const piece of piecesOf(value)) {
        if (seen.has(piece)) continue;
        seen.add(piece);
        forms.push(...formsOf(piece));
      }
    }
  }
  if (forms.length === 0) return noRedaction;
  const kinds = new Map<Form["kind"], Form[]>();
  for (const form of forms) kinds.set(form.kind, [...(kinds.get(form.kind) ?? []), form]);
  const patterns = [...kinds.values()].flatMap(patternsOf);
  const inGzip = gunzip && ((base64: string) => gzipHolds(base64, patterns, gunzip));
  return (text) => {
    if (text === "") return text;
    let out = text;
    if (inGzip && text.includes(GZIP_BASE64)) {
      out = text.replace(GZIP_TOKEN, (token: string, at: number) => redactGzip(token, LINE_END.test(text.charAt(at + token.length)), inGzip));
    }
    for (const pattern of patterns) out = out.replace(pattern, REDACTED);
    return out;
  };
}

/** What follows the last line of a token that ends the line: a line break, or the end of the text. */
const LINE_END = /^[\r\n]?$/;

/**
 * The patterns of forms of one kind, a few forms to a pattern: the forms as printed whole (a line
 * break allowed between any two units), and, those that may stand apart, with the same separator
 * between every two units.
 */
function patternsOf(forms: Form[]): RegExp[] {
  // Longest first, so a secret that contains another is replaced whole.
  const sorted = forms.sort((a, b) => b.length - a.length);
  const patterns: RegExp[] = [];
  for (let i = 0; i < sorted.length; i += FORMS_PER_PATTERN) {
    const some = sorted.slice(i, i + FORMS_PER_PATTERN);
    patterns.push(new RegExp(some.map((f) => f.units.join(BREAK)).join("|"), "gu"));
    const apart = some.filter((f) => f.separable).map((f, n) => separated(f.units, n + 1));
    if (apart.length > 0) patterns.push(new RegExp(apart.join("|"), "gu"));
  }
  return patterns;
}

/** Units with one separator (capture group `group`) between the first two, and the same between every two after. */
function separated([first, ...rest]: string[], group: number): string {
  return `${first}${BREAK}([\\s\\S]{1,4}?)${BREAK}${rest.join(`${BREAK}(?:\\${group})${BREAK}`)}`;
}

/**
 * A long secret (a private key) in pieces of PIECE_LENGTH characters, each looked for as a secret of
 * its own: printed whole, in any of the forms, it is replaced piece after piece. The patterns of one
 * form of a few thousand characters take seconds to compile, those of its pieces milliseconds.
 */
function piecesOf(value: string): string[] {
  const chars = [...value];
  if (chars.length <= PIECE_LENGTH) return [value];
  const pieces: string[] = [];
  for (let i = 0; i < chars.length; i += PIECE_LENGTH) pieces.push(chars.slice(i, i + PIECE_LENGTH).join(""));
  // A last piece too short to be taken for a secret goes with the one before.
  if ([...pieces.at(-1)!].length < MIN_SECRET_LENGTH) {
    const last = pieces.pop()!;
    pieces.push(pieces.pop()! + last);
  }
  return pieces;
}

/** Every form of one value a redactor looks for. */
function formsOf(value: string): Form[] {
  const chars = [...value];
  const bytes = Buffer.from(value, "utf8");
  const forms: Form[] = [
    { kind: "characters", units: chars.map(escapedChar), length: value.length, separable: true },
    { kind: "reversed", units: [...chars].reverse().map(literal), length: value.length, separable: true },
    { kind: "hex", units: [...bytes].map((b) => hexDigits(b.toString(16).padStart(2, "0"))), length: bytes.length * 2, separable: true },
  ];
  for (const encoded of base64Forms(value)) {
    if (encoded.length >= MIN_SECRET_LENGTH) forms.push({ kind: "base64", units: [...encoded].map(literal), length: encoded.length, separable: false });
  }
  return forms;
}

/** One character as it is, percent-encoded (UTF-8 bytes, `+` for a space) or JSON-escaped. */
function escapedChar(c: string): string {
  const ways = new Set([literal(c)]);
  ways.add([...Buffer.from(c, "utf8")].map((b) => `%${hexDigits(b.toString(16).padStart(2, "0"))}`).join(""));
  if (c === " ") ways.add("\\+");
  let units = "";
  for (let i = 0; i < c.length; i++) units += `\\\\u${hexDigits(c.charCodeAt(i).toString(16).padStart(4, "0"))}`;
  ways.add(units);
  const short = JSON_SHORT[c];
  if (short) ways.add(literal(short));
  return `(?:${[...ways].join("|")})`;
}

/** The escapes JSON has besides `\uXXXX`. */
const JSON_SHORT: Record<string, string> = { '"': '\\"', "\\": "\\\\", "/": "\\/", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t" };

/** Hex digits, each letter in either case. */
function hexDigits(hex: string): string {
  return hex.replace(/[a-f]/g, (d) => `[${d}${d.toUpperCase()}]`);
}

/** Text matched as it is. */
function literal(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&");
}

/**
 * The part of the base64 of `value` that is the same wherever `value` starts in a longer byte
 * string: at each of the three offsets, the characters that depend on its bytes alone.
 */
export function base64Forms(value: string): string[] {
  const bytes = Buffer.from(value, "utf8");
  const forms: string[] = [];
  for (const offset of [0, 1, 2]) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes])
      .toString("base64")
      .replace(/=+$/, "");
    // Characters that also depend on the bytes before: none at offset 0, two at 1, three at 2.
    const start = [0, 2, 3][offset]!;
    // And on the bytes after: the last group's characters past the value's own bits.
    const total = offset + bytes.length;
    const end = Math.floor(total / 3) * 4 + [0, 1, 2][total % 3]!;
    if (end > start) forms.push(encoded.slice(start, end));
  }
  return forms;
}

// ---------------------------------------------------------------------------------------------
// gzip data in base64

/** The base64 of gzip's magic bytes and its one compression method (1f 8b 08): how every such token starts. */
const GZIP_BASE64 = "H4sI";
/**
 * A base64 token (either alphabet) that starts as gzip data does, at the start of the text or after
 * a character no base64 text has, with what starts each line after it as long as that is base64
 * too: `base64` wraps what it prints over lines. Which of those lines are the token redactGzip decides.
 */
const GZIP_TOKEN = /(?<![A-Za-z0-9+/_-])H4sI[A-Za-z0-9+/_-]*=*(?:\r?\n[A-Za-z0-9+/_-]+=*)*/g;

/**
 * A gzip token with a secret in it replaced: the fewest of its lines that hold the secret, and the
 * whole lines of base64 after them (the rest of the data as `base64` wraps it). A line that goes
 * on with other text (`Error: ...` on the line after the token) is not the token's unless the
 * secret is in it. `endsLine`: whether the token's last line ends where the match does.
 */
function redactGzip(token: string, endsLine: boolean, holds: (base64: string) => boolean): string {
  if (!holds(token)) return token;
  // Each line with its line break.
  const lines = token.split(/(?<=\n)/);
  const upTo = (n: number) => lines.slice(0, n).join("");
  // Holding the secret only grows with the lines taken: the fewest by bisection.
  let [without, taken] = [0, lines.length];
  while (taken - without > 1) {
    const middle = Math.floor((without + taken) / 2);
    if (holds(upTo(middle))) taken = middle;
    else without = middle;
  }
  // Every line but the last ends in a line break, so is whole; the last is whole if the text goes on with one.
  if (taken < lines.length) taken = endsLine ? lines.length : Math.max(taken, lines.length - 1);
  const replaced = upTo(taken);
  const lineBreak = /\r?\n$/.exec(replaced)?.[0] ?? "";
  return REDACTED + lineBreak + lines.slice(taken).join("");
}

/**
 * Whether a base64 token's gzip data holds a secret: inflated as far as it goes (a token cut short
 * still shows what it has), read as UTF-8, looked into for every form. Data that inflates beyond
 * the bound cannot be looked into and counts as holding one.
 */
function gzipHolds(token: string, patterns: RegExp[], gunzip: Gunzip): boolean {
  const data = Buffer.from(token.replace(/\s+/g, ""), "base64");
  // A header (ten bytes) with flags gzip defines: anything else is no gzip data, and costs nothing more.
  if (data.length < 10 || (data[3]! & 0xe0) !== 0) return false;
  const inflated = gunzip(data, GZIP_INFLATED_LIMIT);
  if (inflated === "too large") return true;
  const text = Buffer.from(inflated).toString("utf8");
  return patterns.some((pattern) => {
    pattern.lastIndex = 0;
    return pattern.test(text);
  });
}
