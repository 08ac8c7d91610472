/**
 * GitHub's anchors for Markdown headings, written apart from pairflow (src/config/anchor.ts) to
 * check it: the split tests and the replay bench compare piece ids with these.
 */

/** GitHub's anchor for a heading that shows `shown`, before numbering: lower case, a space made `-`, anything but letters, marks, digits, `_` and `-` dropped. */
export function anchorOf(shown: string): string {
  let out = "";
  for (const c of shown.toLowerCase()) {
    if (c === " ") out += "-";
    else if (/[\p{Letter}\p{Mark}\p{Decimal_Number}_-]/u.test(c)) out += c;
  }
  return out;
}

/** Numbers repeats as GitHub does: the first free of `id`, `id-1`, `id-2`, ... counting on from the last number `id` was given. */
export function numbering(reserved: string[] = []): (id: string) => string {
  const taken = new Set<string>(reserved);
  const last = new Map<string, number>();
  return (id) => {
    let n = last.get(id) ?? 0;
    let candidate = id;
    while (taken.has(candidate)) candidate = `${id}-${++n}`;
    last.set(id, n);
    taken.add(candidate);
    return candidate;
  };
}
