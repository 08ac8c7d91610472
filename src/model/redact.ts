/**
 * Taking secrets out of text before it leaves pairflow. What a command printed (a guard's feedback,
 * a generator's stderr) goes into the next attempt's prompt, to a model provider, into run records,
 * the job log, the job summary and the pull request comment. A command can read only what it was
 * given, but code a model wrote may print whatever it finds: every secret pairflow knows of is
 * replaced by `***` first, also when the command broke it over lines or encoded it in base64.
 */

export type Redact = (text: string) => string;

/** Shorter values are not taken for secrets: replacing every "true" or "main" would garble the text. */
export const MIN_SECRET_LENGTH = 6;

export const REDACTED = "***";

/** Leaves text as it is. */
export const noRedaction: Redact = (text) => text;

/**
 * A function that replaces each of `secrets` in a text by `***`: as it is, with line breaks
 * anywhere inside it (`fold`, a wrapped log line), and as the base64 of it at any of the three
 * alignments it can have in a longer base64 text (`echo $TOKEN | base64`).
 */
export function redactor(secrets: Iterable<string>): Redact {
  const forms = new Set<string>();
  for (const secret of secrets) {
    for (const value of new Set([secret, secret.trim()])) {
      if (value.length < MIN_SECRET_LENGTH) continue;
      forms.add(value);
      for (const encoded of base64Forms(value)) if (encoded.length >= MIN_SECRET_LENGTH) forms.add(encoded);
    }
  }
  if (forms.size === 0) return noRedaction;
  // Longest first, so a secret that contains another is replaced whole.
  const alternatives = [...forms].sort((a, b) => b.length - a.length).map(brokenOverLines);
  const pattern = new RegExp(alternatives.join("|"), "gu");
  return (text) => (text === "" ? text : text.replace(pattern, REDACTED));
}

/** The value's characters, each escaped for a regular expression, with an optional line break between any two. */
function brokenOverLines(value: string): string {
  return [...value].map((c) => c.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")).join("(?:\\r?\\n)?");
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
