/** The json guard: the artifact must be a JSON document, nothing around it. */
import type { Guard } from "../model/ports.js";

export type ParsedJson = { ok: true; value: unknown } | { ok: false; feedback: string };

/**
 * Parses the artifact as JSON. Surrounding whitespace is allowed; anything else (prose, a Markdown
 * fence) is rejected, since whatever reads the artifact next would choke on it too.
 */
export function parseJson(content: string): ParsedJson {
  const text = content.trim();
  if (text === "") return { ok: false, feedback: "not valid JSON: the artifact is empty" };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    // Positions are in the trimmed text; count from the artifact's start so line numbers match the file.
    const offset = content.length - content.trimStart().length;
    return { ok: false, feedback: `not valid JSON: ${describeParseError(message, content, offset, text.length)}` };
  }
}

/**
 * V8's messages give a character position (and, from Node 22, a line and column in the trimmed text);
 * rewrite them to one form with the line and column in the artifact, which a model can act on.
 */
function describeParseError(message: string, content: string, offset: number, length: number): string {
  const position = /at position (\d+)/.exec(message);
  const reason = message.replace(/ in JSON at position \d+.*$/, "").replace(/ at position \d+.*$/, "");
  if (position) return `${reason} at ${lineColumn(content, offset + Number(position[1]))}`;
  if (/Unexpected end of JSON input/.test(message)) return `${reason} at ${lineColumn(content, offset + length)}`;
  return message;
}

function lineColumn(text: string, index: number): string {
  const before = text.slice(0, index);
  const line = before.split("\n").length;
  const column = index - (before.lastIndexOf("\n") + 1) + 1;
  return `line ${line}, column ${column}`;
}

export const jsonGuard: Guard = async (request) => {
  const parsed = parseJson(request.content);
  return parsed.ok ? { accepted: true, feedback: "" } : { accepted: false, feedback: parsed.feedback };
};
