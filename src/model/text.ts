/** The closest of `candidates` to `word`, when it is close enough to be a likely typo. */
export function didYouMean(word: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const d = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  // Short words are too easily "close" to anything; longer ones tolerate a transposition or two.
  const allowed = word.length <= 2 ? 0 : word.length <= 4 ? 1 : Math.max(2, Math.floor(word.length / 3));
  return best !== undefined && bestDistance <= allowed ? best : undefined;
}

/** Edit distance where swapping two neighbouring letters counts as one edit, the commonest typo. */
function editDistance(a: string, b: string): number {
  let before: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) row[j] = Math.min(row[j]!, before[j - 2]! + 1);
    }
    before = prev;
    prev = row;
  }
  return prev[b.length]!;
}

const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** The bytes as text, as a dependent's prompt holds them; undefined when they are not valid UTF-8. */
export function utf8Text(bytes: Uint8Array): string | undefined {
  try {
    return STRICT_UTF8.decode(bytes);
  } catch {
    return undefined;
  }
}

/** 8388608 -> "8 MiB", 1500 -> "1500 bytes". */
export function formatBytes(bytes: number): string {
  for (const [unit, size] of [
    ["GiB", 2 ** 30],
    ["MiB", 2 ** 20],
    ["KiB", 2 ** 10],
  ] as const) {
    if (bytes >= size && bytes % size === 0) return `${bytes / size} ${unit}`;
  }
  return `${bytes} bytes`;
}

/**
 * `n` with its thousands grouped ("12,345"), as `toLocaleString("en-US")` writes it. Integers are
 * grouped here: the first toLocaleString of a process loads ICU's locale data, tens of
 * milliseconds of every command that prints a count.
 */
export function grouped(n: number): string {
  if (!Number.isSafeInteger(n)) return n.toLocaleString("en-US");
  const digits = String(Math.abs(n));
  let out = digits.slice(0, digits.length % 3 || 3);
  for (let i = out.length; i < digits.length; i += 3) out += `,${digits.slice(i, i + 3)}`;
  return n < 0 ? `-${out}` : out;
}
