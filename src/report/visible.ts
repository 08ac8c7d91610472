/**
 * Text as a terminal or a log shows it when pairflow did not write it: what a generator or guard
 * printed (feedback, stderr, a failure's note) and names that come from the repository (pair ids
 * made from file names). Every control character but newline and tab is made visible as `\xNN`
 * (ESC as the four characters `\x1b`, a carriage return as `\x0d`), C1 controls and DEL too, so
 * none is interpreted: no changed window title, no cleared line hiding a rejection, no colour.
 * What is stored (feedback in records) stays as it was; only what is shown is escaped, and
 * pairflow's own colours are put around text already escaped.
 */
export function visible(text: string): string {
  let out = "";
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (!isControl(code)) continue;
    out += text.slice(from, i) + `\\x${code.toString(16).padStart(2, "0")}`;
    from = i + 1;
  }
  return from === 0 ? text : out + text.slice(from);
}

/** C0 controls but tab and newline, DEL, and C1 controls. */
function isControl(code: number): boolean {
  return (code < 0x20 && code !== 0x09 && code !== 0x0a) || (code >= 0x7f && code <= 0x9f);
}
