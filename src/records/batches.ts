/**
 * The provider batches a workflow's runs submitted and have not yet done with, in the state
 * directory: batches/<workflow>.jsonl, one line per change of a batch (its whole record), appended
 * and written through to the operating system before the change returns, so a kill at any moment
 * leaves every batch whose submission began on record. The last line of a batch wins; a batch done
 * with is dropped by a line saying so, and the file is rewritten without the lines no longer read
 * once they outnumber the rest. A line a kill cut short is ignored.
 *
 * The batches the CI snapshot holds (a runner that submitted them and stopped) join this machine's:
 * a fresh runner collects them as a later run here would.
 */
import { closeSync, constants, existsSync, openSync, readFileSync, writeSync } from "node:fs";
import path from "node:path";
import type { BatchLedger } from "../model/ports.js";
import { isBatchRecord, type BatchRecord } from "../model/records.js";
import { sha256Hex } from "../refs/hash.js";
import { writeFileAtomic } from "../workspace/files.js";
import { makeRealDirs } from "../workspace/stateDir.js";

export function batchesPath(stateDir: string, workflowPath: string): string {
  return path.join(stateDir, "batches", `${sha256Hex(workflowPath).slice(0, 16)}.jsonl`);
}

interface Contents {
  putContent(data: string): string;
  content(hash: string): Buffer | undefined;
}

export class BatchFile implements BatchLedger {
  private readonly file: string;
  private readonly records = new Map<string, BatchRecord>();
  private fd: number | undefined;

  constructor(
    private readonly stateDir: string,
    workflowPath: string,
    private readonly store: Contents,
    /** The CI snapshot's batches, and a way to have the snapshot saved soon after a submission. */
    private readonly remote?: { batches?(): BatchRecord[]; saveSoon?(): void },
  ) {
    this.file = batchesPath(stateDir, workflowPath);
    const { records, lines } = fold(this.file);
    for (const r of records) this.records.set(r.key, r);
    // What the snapshot holds and this machine does not: its results are collected again from the provider.
    // They are this machine's record from now on, so the next snapshot keeps them too.
    const brought: BatchRecord[] = [];
    for (const batch of safely(() => this.remote?.batches?.() ?? [])) {
      if (isBatchRecord(batch) && !this.records.has(batch.key)) {
        const { results: _, ...rest } = batch;
        const record: BatchRecord = { ...rest, state: rest.state === "ended" ? "submitted" : rest.state };
        this.records.set(batch.key, record);
        brought.push(record);
      }
    }
    if (lines > 2 * this.records.size + 16) this.rewrite();
    else for (const record of brought) this.append(record);
  }

  batches(): BatchRecord[] {
    return [...this.records.values()];
  }

  put(batch: BatchRecord): void {
    this.records.set(batch.key, batch);
    this.append(batch);
    // A submission: the CI snapshot should know it before a lost runner could lose it.
    if (batch.state === "submitted" && batch.results === undefined) this.remote?.saveSoon?.();
  }

  drop(keys: readonly string[]): void {
    const known = keys.filter((key) => this.records.delete(key));
    for (const key of known) this.append({ key, dropped: true });
  }

  putContent(content: string): string {
    return this.store.putContent(content);
  }

  content(hash: string): string | undefined {
    return this.store.content(hash)?.toString("utf8");
  }

  close(): void {
    if (this.fd === undefined) return;
    try {
      closeSync(this.fd);
    } catch {
      // every line was written through already
    }
    this.fd = undefined;
  }

  private append(value: unknown): void {
    if (this.fd === undefined) {
      // Never into a link: batches/ is made one real directory at a time, and the file is not followed.
      makeRealDirs(this.stateDir, path.dirname(this.file));
      this.fd = openSync(this.file, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, 0o644);
    }
    const bytes = Buffer.from(JSON.stringify(value) + "\n", "utf8");
    for (let done = 0; done < bytes.length;) done += writeSync(this.fd, bytes, done, bytes.length - done);
  }

  private rewrite(): void {
    this.close();
    makeRealDirs(this.stateDir, path.dirname(this.file));
    writeFileAtomic(this.file, [...this.records.values()].map((r) => JSON.stringify(r) + "\n").join(""));
  }
}

/** The batches the state directory records for the workflow, as they are now (nothing written). */
export function readBatches(stateDir: string, workflowPath: string): BatchRecord[] {
  return fold(batchesPath(stateDir, workflowPath)).records;
}

function fold(file: string): { records: BatchRecord[]; lines: number } {
  const records = new Map<string, BatchRecord>();
  let lines = 0;
  let text = "";
  try {
    if (existsSync(file)) text = readFileSync(file, "utf8");
  } catch {
    // unreadable: as if there were none
  }
  for (const line of text.split("\n")) {
    if (line === "") continue;
    lines++;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      continue; // cut short by a kill
    }
    if (isDropped(value)) records.delete(value.key);
    else if (isBatchRecord(value)) records.set(value.key, value);
  }
  return { records: [...records.values()], lines };
}

function safely<T>(read: () => T[]): T[] {
  try {
    return read();
  } catch {
    return [];
  }
}

function isDropped(v: unknown): v is { key: string; dropped: true } {
  return typeof v === "object" && v !== null && typeof (v as { key?: unknown }).key === "string" && (v as { dropped?: unknown }).dropped === true;
}
