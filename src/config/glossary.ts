/**
 * Glossaries by term (`foreach: {glossary: glossary/{lang}.yml}`, docs/foreach.md): a file of
 * `term: translation`, of which each piece (or file) gets only the entries whose terms occur in it.
 * Those entries are part of its prompt, and so of its reference: editing, adding or removing a
 * term re-runs exactly the pieces that contain it.
 *
 * A term occurs in a text when, both lower-cased (String.prototype.toLowerCase), the term is found
 * in the text with no letter, digit or `_` right before or right after it: "API" occurs in "the
 * api's limits" and in "(API)", not in "APIs" or "rapid". Terms of several words match as written,
 * spaces included.
 *
 * Pure: the caller reads the file.
 */
import { parse } from "yaml";
import { dict } from "../model/dict.js";

/**
 * A glossary read: its entries, and each term lower-cased with its first word, which a text holds
 * as a whole word wherever the term occurs in it (so most terms are ruled out by a set lookup).
 */
export interface Glossary {
  entries: Readonly<Record<string, string>>;
  terms: readonly Term[];
  /** The terms by their first word; those with no word at all (`->`) under "". */
  byWord: ReadonlyMap<string, readonly Term[]>;
}

interface Term {
  term: string;
  lower: string;
  word: string | undefined;
}

const WORD = /[\p{L}\p{N}_]+/gu;
const WORD_CHAR = /[\p{L}\p{N}_]/u;

/** The glossary in text (YAML or JSON), or throws saying what is wrong and what to write instead. */
export function parseGlossary(text: string): Glossary {
  let value: unknown;
  try {
    value = parse(text, { prettyErrors: false, uniqueKeys: true });
  } catch (err) {
    throw new Error(`is not YAML or JSON (${(err as Error).message.split("\n")[0]}); write one "term: translation" a line`);
  }
  if (value === null || value === undefined) value = {};
  if (typeof value !== "object" || Array.isArray(value)) throw new Error(`is not a mapping of terms to translations; write one "term: translation" a line`);
  const entries = dict<string>();
  for (const [term, translation] of Object.entries(value as Record<string, unknown>)) {
    if (typeof translation !== "string" && typeof translation !== "number")
      throw new Error(`gives "${term}" no text as its translation; write "${term}: its translation"`);
    if (term.trim() === "") throw new Error(`has an empty term; give every translation its term`);
    entries[term] = String(translation);
  }
  const terms = Object.keys(entries).map((term): Term => {
    const lower = term.toLowerCase();
    return { term, lower, word: lower.match(WORD)?.[0] };
  });
  const byWord = new Map<string, Term[]>();
  for (const t of terms) {
    const key = t.word ?? "";
    const list = byWord.get(key);
    if (list) list.push(t);
    else byWord.set(key, [t]);
  }
  return { entries, terms, byWord };
}

/** The entries of glossary whose terms occur in text, by term in code unit order; undefined when none does. */
export function entriesIn(glossary: Glossary, text: string): Record<string, string> | undefined {
  const lower = text.toLowerCase();
  // Only the terms whose first word the text holds can occur in it: looked up by the text's words.
  const candidates = [...(glossary.byWord.get("") ?? [])];
  for (const word of new Set(lower.match(WORD) ?? [])) candidates.push(...(glossary.byWord.get(word) ?? []));
  // A term of one word is one of the text's words: it occurs, with nothing more to look at.
  const found = candidates.filter((t) => t.lower === t.word || occurs(lower, t.lower)).map((t) => t.term);
  if (found.length === 0) return undefined;
  found.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const out = dict<string>();
  for (const term of found) out[term] = glossary.entries[term]!;
  return out;
}

/** Whether term occurs in text (both lower-cased) with no letter, digit or `_` on either side. */
export function occurs(text: string, term: string): boolean {
  if (term === "") return false;
  for (let at = text.indexOf(term); at !== -1; at = text.indexOf(term, at + 1)) {
    if (!wordCharBefore(text, at) && !wordCharAt(text, at + term.length)) return true;
  }
  return false;
}

/** Whether the code point starting at i is a letter, digit or `_`. */
function wordCharAt(text: string, i: number): boolean {
  return i < text.length && WORD_CHAR.test(String.fromCodePoint(text.codePointAt(i)!));
}

/** Whether the code point ending right before i is a letter, digit or `_`. */
function wordCharBefore(text: string, i: number): boolean {
  if (i === 0) return false;
  const low = text.charCodeAt(i - 1);
  const start = low >= 0xdc00 && low <= 0xdfff && i >= 2 ? i - 2 : i - 1;
  return wordCharAt(text, start);
}
