/**
 * A person's edit of a file put together from pieces (`foreach: {split}`), mapped to the pieces it
 * touched: each piece's region of the generated file, followed through a line diff to the edited
 * file, gives that piece's text as the person left it. So a fix in one section is kept (and, with
 * carry_edits, carried forward) as that section's own, while the other sections go on as generated.
 *
 * Pure: texts in, texts out.
 */
import { diffLines } from "diff";

/**
 * For each piece, its text in `edited` where that differs from `pieces[i]`, else undefined.
 * `generated` is the pieces put together: `pieces` joined, each made to end a line (as
 * src/config/split.ts assemble joins Markdown and regex pieces).
 */
export function editedPieces(pieces: readonly string[], edited: string): (string | undefined)[] {
  const parts = pieces.map((p) => (p === "" || p.endsWith("\n") ? p : `${p}\n`));
  const generated = parts.join("");
  if (generated === edited) return pieces.map(() => undefined);
  // Where each piece starts and ends in the generated file.
  const bounds: number[] = [0];
  for (const p of parts) bounds.push(bounds.at(-1)! + p.length);
  // Generated offsets at the edges of unchanged runs, and where they are in the edited file.
  const same: { g: number; e: number; length: number }[] = [];
  let g = 0;
  let e = 0;
  for (const change of diffLines(generated, edited)) {
    const n = change.value.length;
    if (change.added) e += n;
    else if (change.removed) g += n;
    else {
      same.push({ g, e, length: n });
      g += n;
      e += n;
    }
  }
  /** Where a generated offset is in the edited file: exact in an unchanged run; inside a change, where the change starts. */
  const at = (offset: number): number => {
    let mapped = 0;
    for (const run of same) {
      if (offset < run.g) break;
      mapped = offset <= run.g + run.length ? run.e + (offset - run.g) : run.e + run.length;
    }
    return offset === generated.length ? edited.length : mapped;
  };
  return parts.map((part, i) => {
    const text = edited.slice(at(bounds[i]!), at(bounds[i + 1]!));
    return text === part ? undefined : text;
  });
}
