/**
 * Mappings keyed by names that come from people's files: pair ids, component names, prompts
 * entries, file paths, models. Any text that the files allow is such a name, `constructor`,
 * `toString` and `__proto__` included. A plain object `{}` answers a name it lacks with what
 * Object.prototype holds (`lock.pairs["constructor"]` is a function), and an assignment to
 * `__proto__` replaces its prototype instead of adding a key; the mappings made here have no
 * prototype, so every name is a key like any other.
 *
 * Mappings read from JSON or YAML have a prototype: read them with `own`, or make them
 * dictionaries with `asDict` first.
 */

/** An empty mapping without a prototype. */
export function dict<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

/** A mapping without a prototype holding the entries. */
export function dictOf<T>(entries: Iterable<readonly [string, T]>): Record<string, T> {
  const out = dict<T>();
  for (const [key, value] of entries) out[key] = value;
  return out;
}

/** The mapping's own entry for key: undefined where it has none, whatever its prototype holds. */
export function own<T>(record: Readonly<Record<string, T>> | null | undefined, key: string): T | undefined {
  return record !== null && record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;
}

/**
 * The mapping (a plain object JSON.parse or a YAML parser made, its keys its own properties) made a
 * dictionary in place: its prototype removed, its entries kept. Returned for convenience.
 */
export function asDict<T>(record: Record<string, T>): Record<string, T> {
  if (Object.getPrototypeOf(record) !== null) Object.setPrototypeOf(record, null);
  return record;
}
