/**
 * The workflow commands a GitHub runner finds in what a step printed, by the runner's own rules
 * (actions/runner: ActionCommandManager.TryProcessCommand, ActionCommand.TryParseV2 and TryParse):
 *
 * - output is read line by line, a line ending at LF, CR or CRLF;
 * - `::name props::data`: after the line's leading whitespace is trimmed, it starts with `::`, the
 *   next `::` ends the command's name and properties (comma-separated `key=value`), the rest is data;
 * - `##[name props]data`: the older form, wherever `##[` stands in the line, properties `;`-separated;
 * - a name counts only if the runner knows it, in any case;
 * - `stop-commands` with a token stops all processing until a line is a command named by the token
 *   (`::token::` or `##[token]`); the commands in between are text. An empty token stops it for good
 *   here (older runners; newer ones refuse it, which makes no difference to what is forged).
 */

export interface WorkflowCommand {
  /** As the runner matched it: lower case. */
  command: string;
  properties: Record<string, string>;
  data: string;
  line: string;
}

/** Every command the runner knows (its command extensions), and stop-commands. */
const KNOWN = [
  "add-mask",
  "add-matcher",
  "add-path",
  "debug",
  "echo",
  "endgroup",
  "error",
  "group",
  "notice",
  "remove-matcher",
  "save-state",
  "set-env",
  "set-output",
  "stop-commands",
  "warning",
];

/** What .NET's String.TrimStart() removes: Char.IsWhiteSpace. */
const LEADING_SPACE = /^[\t\n\v\f\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/;

export function workflowCommands(output: string): WorkflowCommand[] {
  const known = new Set(KNOWN);
  let stopped: string | undefined;
  const found: WorkflowCommand[] = [];
  for (const line of output.split(/\r\n|\r|\n/)) {
    const command = parseV2(line, known) ?? parseV1(line, known);
    if (!command) continue;
    if (stopped !== undefined) {
      if (stopped !== "" && command.command === stopped.toLowerCase()) {
        known.delete(stopped.toLowerCase());
        stopped = undefined;
        found.push(command);
      }
      continue;
    }
    if (command.command === "stop-commands") {
      stopped = command.data;
      known.add(stopped.toLowerCase());
    }
    found.push(command);
  }
  return found;
}

function parseV2(line: string, known: Set<string>): WorkflowCommand | undefined {
  const message = line.replace(LEADING_SPACE, "");
  if (!message.startsWith("::")) return undefined;
  const end = message.indexOf("::", 2);
  if (end < 0) return undefined;
  const info = message.slice(2, end);
  const space = info.indexOf(" ");
  const name = space < 0 ? info : info.slice(0, space);
  if (!known.has(name.toLowerCase())) return undefined;
  const properties: Record<string, string> = {};
  if (space > 0) {
    for (const part of info
      .slice(space + 1)
      .trim()
      .split(",")
      .filter(Boolean)) {
      const [key, value] = splitOnce(part);
      if (key && value) properties[key] = unescape(value, ["\r", "%0D"], ["\n", "%0A"], [":", "%3A"], [",", "%2C"], ["%", "%25"]);
    }
  }
  return { command: name.toLowerCase(), properties, data: unescape(message.slice(end + 2), ["\r", "%0D"], ["\n", "%0A"], ["%", "%25"]), line };
}

function parseV1(line: string, known: Set<string>): WorkflowCommand | undefined {
  const at = line.indexOf("##[");
  if (at < 0) return undefined;
  const close = line.indexOf("]", at);
  if (close < 0) return undefined;
  const info = line.slice(at + 3, close);
  const space = info.indexOf(" ");
  const name = space < 0 ? info : info.slice(0, space);
  if (!known.has(name.toLowerCase())) return undefined;
  const escapes: [string, string][] = [
    [";", "%3B"],
    ["\r", "%0D"],
    ["\n", "%0A"],
    ["]", "%5D"],
    ["%", "%25"],
  ];
  const properties: Record<string, string> = {};
  if (space > 0) {
    for (const part of info
      .slice(space + 1)
      .split(";")
      .filter(Boolean)) {
      const [key, value] = splitOnce(part);
      if (key && value) properties[key] = unescape(value, ...escapes);
    }
  }
  return { command: name.toLowerCase(), properties, data: unescape(line.slice(close + 1), ...escapes), line };
}

/** `key=value` at its first `=`, neither part empty (the runner drops empty parts). */
function splitOnce(part: string): [string, string] | [] {
  const eq = part.indexOf("=");
  if (eq <= 0 || eq === part.length - 1) return [];
  return [part.slice(0, eq), part.slice(eq + 1)];
}

/** The runner's unescaping: each escape replaced by its character, in the order given. */
function unescape(text: string, ...mappings: [string, string][]): string {
  let out = text;
  for (const [char, escaped] of mappings) out = out.split(escaped).join(char);
  return out;
}
