/**
 * A candidate written at its output path while a guard judges it, where no sandbox layer can put
 * it there: what was at the path before is kept in a journal under the state directory, flushed,
 * before the candidate is written, and put back after the guard, whatever its verdict (an accepted
 * candidate is then written as every output is). A run killed meanwhile leaves the journal: the
 * next run of the workflow puts each file back before anything runs (recoverStaged).
 */
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { sha256Hex } from "../refs/hash.js";
import { writeFileAtomic } from "./files.js";

interface Journal {
  file: string;
  /** The file's bytes before (base64), or null when there was none. */
  previous: string | null;
}

const JOURNALS = "staged";

/** Writes `content` at `file`; returns what puts the file back as it was. */
export function stageCandidate(stateDir: string, file: string, content: Uint8Array): () => void {
  const journal = path.join(stateDir, JOURNALS, `${sha256Hex(file).slice(0, 32)}.json`);
  const previous = existsSync(file) ? readFileSync(file) : undefined;
  const record: Journal = { file, previous: previous === undefined ? null : previous.toString("base64") };
  writeFileAtomic(journal, JSON.stringify(record) + "\n");
  writeFileAtomic(file, content);
  let done = false;
  return () => {
    if (done) return;
    done = true;
    putBack(record);
    rmSync(journal, { force: true });
  };
}

/** Puts back every file a killed run left staged; the files put back. */
export function recoverStaged(stateDir: string): string[] {
  const dir = path.join(stateDir, JOURNALS);
  if (!existsSync(dir)) return [];
  const restored: string[] = [];
  for (const name of readdirSync(dir).filter((n) => n.endsWith(".json"))) {
    const journal = path.join(dir, name);
    let record: Journal;
    try {
      record = JSON.parse(readFileSync(journal, "utf8")) as Journal;
    } catch {
      // Torn before the candidate was written (the journal is written first): nothing to put back.
      rmSync(journal, { force: true });
      continue;
    }
    if (typeof record.file === "string" && path.isAbsolute(record.file)) {
      putBack(record);
      restored.push(record.file);
    }
    rmSync(journal, { force: true });
  }
  return restored;
}

function putBack(record: Journal): void {
  if (record.previous === null) rmSync(record.file, { force: true });
  else writeFileAtomic(record.file, Buffer.from(record.previous, "base64"));
}
