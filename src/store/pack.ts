/**
 * Packs: many store entries in one file. A run that writes many entries appends them to one pack
 * of its own rather than making three files (and a directory) a pair, each of which costs the file
 * system more than the whole append:
 *
 *   store/packs/<time>-<pid>-<tag>.pack
 *
 *   {"pack":1}                              the first line
 *   {"object":"<hash>","bytes":N}           an object: its N bytes follow the line, then a newline
 *   {"record":{...}}                        a record (a StoreRecord)
 *   {"request":"<key>","entries":[...]}     a request's index entries, as a whole: the newest line wins
 *
 * An entry is appended with one write, before the write that follows it in a run (the lock file's
 * journal), as a file of its own would be. A pack is read in order and up to the first entry that
 * is not whole: what a killed writer left torn at its end is a miss, like a torn file. An object is
 * verified against its hash when read, a record checked when parsed. Packs sort by their names,
 * oldest first; an entry of a later pack replaces the same entry of an earlier one, and any pack's
 * replaces a file of the older layout.
 */
import { closeSync, constants, fstatSync, openSync, readdirSync, readSync, writeSync } from "node:fs";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { isRequestEntry, type RequestEntry, type StoreRecord } from "../model/records.js";

export const PACK_HEADER = '{"pack":1}\n';
const HEX64 = /^[0-9a-f]{64}$/;
/** How much of a pack one read takes in while its entries are listed. */
const WINDOW = 1 << 20;

export type PackEntry =
  | { kind: "object"; hash: string; offset: number; bytes: number }
  | { kind: "record"; record: StoreRecord; bytes: number }
  | { kind: "request"; key: string; entries: RequestEntry[]; bytes: number };

let lastPackTime = 0;

/**
 * A new pack's name: it sorts after the packs written before it (by time, then by writer). Within
 * a process the time goes up by a millisecond at least from one pack to the next: two packs made
 * in the same millisecond sorted by their random tags, so the newer could lose to the older.
 */
export function newPackName(): string {
  lastPackTime = Math.max(Date.now(), lastPackTime + 1);
  return `${lastPackTime.toString(36).padStart(9, "0")}-${process.pid}-${randomBytes(4).toString("hex")}.pack`;
}

/** The process that writes (or wrote) a pack, from its name. */
export function packWriter(name: string): number | undefined {
  const pid = Number(/^[0-9a-z]+-(\d+)-[0-9a-f]+\.pack$/.exec(name)?.[1]);
  return pid > 0 ? pid : undefined;
}

/** The packs in a directory, oldest first; none when it is not a directory. */
export function listPacks(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.filter((n) => !n.startsWith(".") && n.endsWith(".pack")).sort();
}

export function objectLine(hash: string, bytes: number): string {
  return `{"object":"${hash}","bytes":${bytes}}\n`;
}

export function recordLine(record: StoreRecord): string {
  return JSON.stringify({ record }) + "\n";
}

export function requestLine(key: string, entries: readonly RequestEntry[]): string {
  return JSON.stringify({ request: key, entries }) + "\n";
}

/**
 * Every whole entry of a pack, in order. A pack whose first line is not a pack's yields nothing; a
 * link is not followed.
 */
export function readPack(file: string): PackEntry[] {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return [];
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return [];
    return scan(new Window(fd, stat.size));
  } finally {
    closeSync(fd);
  }
}

function scan(w: Window): PackEntry[] {
  const out: PackEntry[] = [];
  const first = w.line(0);
  if (first?.text !== PACK_HEADER.slice(0, -1)) return out;
  let pos = first.next;
  for (;;) {
    const line = w.line(pos);
    if (line === undefined) return out;
    let value: { object?: unknown; bytes?: unknown; record?: unknown; request?: unknown; entries?: unknown };
    try {
      value = JSON.parse(line.text) as typeof value;
    } catch {
      return out;
    }
    if (typeof value.object === "string") {
      const bytes = value.bytes;
      if (!HEX64.test(value.object) || typeof bytes !== "number" || !Number.isSafeInteger(bytes) || bytes < 0) return out;
      const end = line.next + bytes;
      if (w.byteAt(end) !== 0x0a) return out;
      out.push({ kind: "object", hash: value.object, offset: line.next, bytes });
      pos = end + 1;
      continue;
    }
    const size = line.next - pos;
    if (value.record !== undefined) {
      const r = value.record as StoreRecord;
      if (!r || typeof r !== "object" || typeof r.pair !== "string" || typeof r.configRef !== "string" || typeof r.status !== "string") return out;
      out.push({ kind: "record", record: r, bytes: size });
    } else if (typeof value.request === "string" && Array.isArray(value.entries)) {
      out.push({ kind: "request", key: value.request, entries: value.entries.filter(isRequestEntry), bytes: size });
    } else return out;
    pos = line.next;
  }
}

/** A part of a file read at once: lines and bytes are taken from it, and it moves on as they are. */
class Window {
  private start = 0;
  private buf = Buffer.alloc(0);

  constructor(
    private readonly fd: number,
    private readonly size: number,
  ) {}

  /** The line from pos (without its newline) and where the next begins; undefined when it does not end. */
  line(pos: number): { text: string; next: number } | undefined {
    for (let want = WINDOW; ; want *= 2) {
      if (pos >= this.start && pos < this.start + this.buf.length) {
        const at = this.buf.indexOf(0x0a, pos - this.start);
        if (at >= 0) return { text: this.buf.toString("utf8", pos - this.start, at), next: this.start + at + 1 };
        if (this.start + this.buf.length >= this.size) return undefined;
      } else if (pos >= this.size) return undefined;
      this.fill(pos, want);
    }
  }

  byteAt(pos: number): number | undefined {
    if (pos >= this.size) return undefined;
    if (pos < this.start || pos >= this.start + this.buf.length) this.fill(pos, WINDOW);
    return this.buf[pos - this.start];
  }

  private fill(pos: number, want: number): void {
    const buf = Buffer.allocUnsafe(Math.min(want, this.size - pos));
    let done = 0;
    while (done < buf.length) {
      const n = readSync(this.fd, buf, done, buf.length - done, pos + done);
      if (n === 0) break;
      done += n;
    }
    this.start = pos;
    this.buf = buf.subarray(0, done);
  }
}

/** An object's bytes from a pack, or undefined when they cannot be read whole. */
export function readPackObject(file: string, offset: number, bytes: number): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const buf = Buffer.allocUnsafe(bytes);
    let done = 0;
    while (done < bytes) {
      const n = readSync(fd, buf, done, bytes - done, offset + done);
      if (n === 0) return undefined;
      done += n;
    }
    return buf;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** Appends to a new pack: each entry in one write. Throws what the file system says; the pack is then not to be written again. */
export class PackWriter {
  private size: number;

  private constructor(
    readonly file: string,
    private readonly fd: number,
  ) {
    this.size = 0;
  }

  /** Creates a new pack in dir (never through a link, never over a file that is there). */
  static create(dir: string): PackWriter {
    const file = path.join(dir, newPackName());
    const fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW | constants.O_APPEND, 0o666);
    const writer = new PackWriter(file, fd);
    try {
      writer.append(Buffer.from(PACK_HEADER, "utf8"));
    } catch (err) {
      writer.close();
      throw err;
    }
    return writer;
  }

  /** Appends bytes; returns where they begin. */
  append(bytes: Uint8Array): number {
    const at = this.size;
    for (let done = 0; done < bytes.length;) done += writeSync(this.fd, bytes, done, bytes.length - done);
    this.size += bytes.length;
    return at;
  }

  close(): void {
    try {
      closeSync(this.fd);
    } catch {
      // closed already
    }
  }
}
