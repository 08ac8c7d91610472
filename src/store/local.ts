/**
 * The local artifact store under the state directory: content by hash, and one record per
 * (pair id, configRef) saying whether that configuration's last outcome was accepted or rejected.
 *
 *   store/objects/<hash[0..2]>/<hash>      artifact content
 *   store/pairs/<pair id>/<configRef>.json record (instance ids percent-encoded, long ones shortened: pairKey)
 *   store/requests/<key[0..2]>/<key>.json  what pairflow's generators returned for a request, and
 *                                          the guards' verdicts on it (src/refs/request.ts)
 *   store/packs/<name>.pack                any of the three, many to a file (src/store/pack.ts)
 *
 * An invocation that writes few entries writes each to a file of its own; one that writes many (a
 * run of many pairs) writes the rest to a pack of its own, one append an entry, which spares the
 * file system a new file (and a directory) a pair. An entry a pack holds is written to a pack
 * again, so that the newest always wins. Both layouts are read.
 *
 * Writes are content-addressed, so two writers of the same artifact agree; a file that exists is
 * replaced atomically, a new one written in place. They are not flushed to disk one by one (a run
 * writes three per pair, and each flush costs milliseconds): every object is verified against its
 * hash when read and every record parsed, so what a crash, or a writer still at work, leaves torn
 * or empty reads as a miss, and the pair runs again or the object is written again. The lock file,
 * which is what a crash must never lose, is written durably elsewhere, after the store's files.
 */
import { spawnSync } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { sha256Hex } from "../refs/hash.js";
import type { ArtifactStore } from "../model/ports.js";
import { isRequestEntry, joinRequestEntry, type RequestEntry, type StoreRecord } from "../model/records.js";
import { pairKey } from "../refs/keys.js";
import { createNew, ownWrite, readFileNoFollow, temporaryFor } from "../workspace/files.js";
import { makeRealDirIn, makeRealDirs, StateLinkError } from "../workspace/stateDir.js";
import { listPacks, objectLine, PackWriter, readPack, readPackObject, recordLine, requestLine } from "./pack.js";

const HEX64 = /^[0-9a-f]{64}$/;
const NEWLINE = Buffer.from("\n", "utf8");

/** How much content a store keeps in memory for reading again (see LocalStore.cached). */
const CACHED_BYTES = 32 * 1024 * 1024;

/** Artifacts kept per request: a retry that asks again adds one; a guard that keeps rejecting does not grow it for ever. */
export const MAX_REQUEST_ENTRIES = 8;

/** Entries an invocation writes to files of their own before it writes the rest to a pack. */
export const PACK_AFTER = 64;

/** What the store's packs hold, newest entry of each kind and key. */
interface PackIndex {
  objects: Map<string, { file: string; offset: number; bytes: number }>;
  records: Map<string, Map<string, StoreRecord>>;
  requests: Map<string, { file: string; entries: RequestEntry[] }>;
}

/** A record in the packs' index: it replaces the one of its pair and reference there. */
function indexRecord(index: PackIndex, rec: StoreRecord): void {
  const byPair = index.records.get(rec.pair);
  if (byPair) byPair.set(rec.configRef, rec);
  else index.records.set(rec.pair, new Map([[rec.configRef, rec]]));
}

export class LocalStore implements ArtifactStore {
  /** Content hashes found whole in this invocation: each object is read and verified at most once. */
  private readonly verified = new Set<string>();
  private readonly generated = new Map<string, Set<string>>();
  /**
   * Content this invocation wrote or verified, newest last, up to CACHED_BYTES: a run reads each
   * accepted artifact again for its dependents' prompts, and content never changes under its hash.
   */
  private readonly cached = new Map<string, Buffer>();
  private cachedBytes = 0;
  /** Directories this invocation has made (or found): each is made once, not before every write. */
  private readonly made = new Set<string>();

  /** Request index files git tracks (committed, so brought by a checkout rather than written by a run): read once. */
  private tracked: Set<string> | undefined;

  /** The packs' entries, read when first asked for, and this invocation's own added as they are written. */
  private packed: PackIndex | undefined;
  /** The pack this invocation writes to, once it writes to one. */
  private pack: PackWriter | undefined;
  /** Entries written so far (see PACK_AFTER). */
  private writes = 0;
  /** Files of the older layout found missing: asked again, a file this invocation did not write is still a miss. */
  private readonly missing = new Set<string>();
  /** The names in pairs/, objects/ and requests/ when first looked in, by directory: a file in none of them is not looked up. */
  private readonly listed = new Map<string, Set<string>>();

  /**
   * `warn` is told once when request index entries that git tracks are ignored. `packAfter`: entries
   * written to files of their own before the rest go to a pack (default PACK_AFTER). `shared`: other
   * processes write here while this one reads, and each looks for the others' entries as they come
   * (the store of a fan-out's shards): every entry a file of its own, and every lookup made afresh.
   */
  constructor(
    readonly dir: string,
    private readonly options: { warn?: (message: string) => void; packAfter?: number; shared?: boolean } = {},
  ) {}

  /** Content hashes of the accepted artifacts this store holds for a pair that pairflow generated, under any reference. */
  generatedHashes(pair: string): Set<string> {
    let hashes = this.generated.get(pair);
    if (hashes) return hashes;
    hashes = new Set();
    const key = pairKey(pair);
    const dir = path.join(this.dir, "pairs", key);
    const names = !key.includes("/") && !key.startsWith(".") && lstatSync(dir, { throwIfNoEntry: false })?.isDirectory() ? readdirSync(dir) : [];
    const refs = new Set(names.flatMap((name) => (name.endsWith(".json") ? [name.slice(0, -".json".length)] : [])));
    for (const ref of this.packs().records.get(pair)?.keys() ?? []) refs.add(ref);
    for (const ref of refs) {
      const rec = this.record(pair, ref);
      if (rec?.status === "accepted" && rec.source !== "human" && rec.contentHash) hashes.add(rec.contentHash);
    }
    this.generated.set(pair, hashes);
    return hashes;
  }

  /** Whether the store holds this content, whole. */
  hasContent(hash: string): boolean {
    return this.verified.has(hash) || this.content(hash) !== undefined;
  }

  record(pair: string, configRef: string): StoreRecord | undefined {
    // Only a valid key was ever written to a pack.
    const packed = this.packs().records.get(pair)?.get(configRef);
    if (packed) return packed;
    const file = this.recordPath(pair, configRef);
    if (!this.exists(file)) return undefined;
    try {
      const rec = JSON.parse(readFileNoFollow(file).toString("utf8")) as StoreRecord;
      return rec.pair === pair && rec.configRef === configRef ? rec : undefined;
    } catch {
      return undefined; // an unreadable record is a miss: the pair runs again
    }
  }

  /** The accepted record for this configuration, if any. */
  accepted(pair: string, configRef: string): StoreRecord | undefined {
    const rec = this.record(pair, configRef);
    return rec?.status === "accepted" ? rec : undefined;
  }

  /** Content by hash, verified: content that does not match its hash is a miss. */
  content(hash: string): Buffer | undefined {
    const known = this.cached.get(hash);
    if (known) return known;
    if (!HEX64.test(hash)) return undefined;
    const packed = this.packs().objects.get(hash);
    if (packed) {
      const data = readPackObject(packed.file, packed.offset, packed.bytes);
      if (data !== undefined && sha256Hex(data) === hash) {
        this.verified.add(hash);
        this.remember(hash, data);
        return data;
      }
    }
    const file = this.objectPath(hash);
    // Looked up first: a plan asks once per skipped pair, mostly for content the store does not
    // hold, and a read that fails costs ten times the lookup (it makes an error to throw).
    if (!this.exists(file)) return undefined;
    let data: Buffer;
    try {
      data = readFileNoFollow(file);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      // A link where an object belongs (ELOOP) is not followed: a miss.
      if (code === "ENOENT" || code === "ENOTDIR" || code === "ELOOP" || code === "EISDIR") return undefined;
      throw err;
    }
    if (sha256Hex(data) !== hash) return undefined;
    this.verified.add(hash);
    this.remember(hash, data);
    return data;
  }

  private remember(hash: string, data: Buffer): void {
    if (data.length > CACHED_BYTES / 16 || this.cached.has(hash)) return;
    this.cached.set(hash, data);
    this.cachedBytes += data.length;
    for (const [old, bytes] of this.cached) {
      if (this.cachedBytes <= CACHED_BYTES) break;
      this.cached.delete(old);
      this.cachedBytes -= bytes.length;
    }
  }

  putContent(data: Buffer | string): string {
    const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
    const hash = sha256Hex(bytes);
    if (!this.verified.has(hash) && this.content(hash) === undefined) this.writeObject(hash, bytes);
    this.verified.add(hash);
    // A copy: the caller's buffer is the caller's to change.
    if (!this.cached.has(hash)) this.remember(hash, Buffer.from(bytes));
    return hash;
  }

  /**
   * Records an outcome. A rejection never replaces an accepted record of the same configuration, and
   * only what pairflow generated is recorded as a configuration's artifact: a hand edit is not.
   */
  putRecord(rec: StoreRecord): void {
    if (rec.status === "rejected" && this.accepted(rec.pair, rec.configRef)) return;
    if (rec.status === "accepted" && rec.source === "human") return;
    if (rec.status === "accepted" && rec.contentHash) this.generated.get(rec.pair)?.add(rec.contentHash);
    const file = this.recordPath(rec.pair, rec.configRef);
    const packs = this.packs();
    if (this.toPack(packs.records.get(rec.pair)?.has(rec.configRef) ?? false)) {
      this.append(file, Buffer.from(recordLine(rec), "utf8"));
      indexRecord(packs, rec);
    } else this.write(file, JSON.stringify(rec, null, 2) + "\n");
  }

  /** What pairflow's generators returned for this request, newest first; a damaged file reads as none. */
  requests(key: string): RequestEntry[] {
    if (!HEX64.test(key)) return [];
    const packed = this.packs().requests.get(key);
    if (packed) return this.trackedRequests().has(packed.file) ? [] : packed.entries.map((e) => ({ ...e }));
    const file = this.requestPath(key);
    if (!this.exists(file) || this.trackedRequests().has(file)) return [];
    try {
      const value = JSON.parse(readFileNoFollow(file).toString("utf8")) as { key?: unknown; entries?: unknown };
      if (value.key !== key || !Array.isArray(value.entries)) return [];
      return value.entries.filter(isRequestEntry);
    } catch {
      return [];
    }
  }

  /**
   * Records an artifact generated for a request: a new one first, or the verdicts given to one
   * already recorded added to its own. The newest MAX_REQUEST_ENTRIES are kept.
   */
  putRequest(key: string, entry: RequestEntry): void {
    if (!HEX64.test(key) || !HEX64.test(entry.contentHash)) return;
    const entries = this.requests(key);
    const known = entries.findIndex((e) => e.contentHash === entry.contentHash);
    if (known === -1) entries.unshift(entry);
    else {
      entries[known] = joinRequestEntry(entries[known]!, entry);
    }
    const kept = entries.slice(0, MAX_REQUEST_ENTRIES);
    const file = this.requestPath(key);
    const packs = this.packs();
    if (this.toPack(packs.requests.has(key))) {
      this.append(file, Buffer.from(requestLine(key, kept), "utf8"));
      packs.requests.set(key, { file: this.pack!.file, entries: kept });
    } else this.write(file, JSON.stringify({ key, entries: kept }) + "\n");
  }

  /** Closes the pack this invocation writes to; a later write starts another. */
  close(): void {
    this.pack?.close();
    this.pack = undefined;
  }

  /** Whether an entry goes to a pack: one a pack holds always does (the newest wins), the others once PACK_AFTER are written. */
  private toPack(inPack: boolean): boolean {
    this.writes++;
    if (this.options.shared) return inPack;
    return inPack || this.pack !== undefined || this.writes > (this.options.packAfter ?? PACK_AFTER);
  }

  private writeObject(hash: string, bytes: Uint8Array): void {
    const file = this.objectPath(hash);
    if (!this.toPack(false)) return this.write(file, bytes);
    const line = Buffer.from(objectLine(hash, bytes.length), "utf8");
    const at = this.append(file, Buffer.concat([line, bytes, NEWLINE]));
    this.packs().objects.set(hash, { file: this.pack!.file, offset: at + line.length, bytes: bytes.length });
  }

  /**
   * Appends one entry to this invocation's pack, made (one directory check) on the first. A write
   * that fails leaves the pack to its torn end: the next entry starts another pack.
   */
  private append(file: string, bytes: Buffer): number {
    return ownWrite(file, () => {
      if (this.pack === undefined) {
        const dir = path.join(this.dir, "packs");
        if (!this.made.has(dir)) this.makeDir(dir);
        try {
          this.pack = PackWriter.create(dir);
        } catch (err) {
          this.made.delete(dir);
          throw err;
        }
      }
      try {
        return this.pack.append(bytes);
      } catch (err) {
        this.close();
        throw err;
      }
    });
  }

  /** The packs' entries, every pack read in order on the first call: a later pack's entry replaces an earlier one's. */
  private packs(): PackIndex {
    if (this.packed) return this.packed;
    const index: PackIndex = { objects: new Map(), records: new Map(), requests: new Map() };
    const dir = path.join(this.dir, "packs");
    // Never read through a link (src/workspace/stateDir.ts): a pack directory that is one is not read.
    const names = lstatSync(dir, { throwIfNoEntry: false })?.isDirectory() ? listPacks(dir) : [];
    for (const name of names) {
      const file = path.join(dir, name);
      for (const e of readPack(file)) {
        if (e.kind === "object") index.objects.set(e.hash, { file, offset: e.offset, bytes: e.bytes });
        else if (e.kind === "record") indexRecord(index, e.record);
        else index.requests.set(e.key, { file, entries: e.entries });
      }
    }
    return (this.packed = index);
  }

  /** Whether a file of the older layout is there; one found missing is not looked up again unless this invocation writes it. */
  private exists(file: string): boolean {
    if (this.options.shared) return existsSync(file);
    if (this.missing.has(file)) return false;
    // A file under a directory the listing of its parent did not hold, and this invocation did not make, is not there.
    const dir = path.dirname(file);
    if (!this.made.has(dir) && !this.listing(path.dirname(dir)).has(path.basename(dir))) return false;
    if (existsSync(file)) return true;
    this.missing.add(file);
    return false;
  }

  /** The names in one of the store's directories, read once (none when it is not a directory, a link included). */
  private listing(dir: string): Set<string> {
    let names = this.listed.get(dir);
    if (names === undefined) {
      names = new Set(lstatSync(dir, { throwIfNoEntry: false })?.isDirectory() ? readdirSync(dir) : []);
      this.listed.set(dir, names);
    }
    return names;
  }

  /**
   * Atomic (a temporary file renamed over the target, named as the workspace's atomic writes name
   * theirs so that a killed writer's leftovers are found the same way) but not flushed: see above.
   */
  private write(file: string, data: string | Uint8Array): void {
    this.missing.delete(file);
    ownWrite(file, () => this.writeOnce(file, data));
  }

  private writeOnce(file: string, data: string | Uint8Array): void {
    const dir = path.dirname(file);
    if (!this.made.has(dir)) this.makeDir(dir);
    // A new file is written in place, which spares a rename (each costs as much as the write): a
    // reader meanwhile, or after a kill, finds it torn, which reads as a miss like any torn file.
    // One that exists is replaced through a temporary file, so that it is never read torn.
    if (this.writeNew(file, data)) return;
    const tmp = temporaryFor(file);
    try {
      writeFileSync(tmp, data);
      renameSync(tmp, file);
    } catch (err) {
      rmSync(tmp, { force: true });
      // The directory may have been removed since (prune): made again on the next write.
      this.made.delete(dir);
      throw err;
    }
  }

  /** Writes `file` unless something is there (false then), a link included; the directory may be gone (prune): it throws. */
  private writeNew(file: string, data: string | Uint8Array): boolean {
    try {
      return createNew(file, data, { flush: false });
    } catch (err) {
      this.made.delete(path.dirname(file));
      throw err;
    }
  }

  /**
   * Makes the directory a file goes to. The store's own directory was checked with the state
   * directory; below it, nothing is made or entered through a link (src/workspace/stateDir.ts). A
   * run makes one directory per pair under pairs/, in a parent made or checked already: that takes
   * one call, not a check of each directory on the way.
   */
  private makeDir(dir: string): void {
    const parent = path.dirname(dir);
    if (this.made.has(parent)) {
      try {
        makeRealDirIn(this.dir, dir);
        this.made.add(dir);
        return;
      } catch (err) {
        if (err instanceof StateLinkError) throw err;
        // The parent may have been removed since (prune): made again below.
        this.made.delete(parent);
      }
    }
    mkdirSync(this.dir, { recursive: true });
    makeRealDirs(this.dir, dir);
    for (let d = dir; d.startsWith(this.dir + path.sep); d = path.dirname(d)) this.made.add(d);
  }

  /**
   * The request index files git tracks. A run writes them; one in a commit came with the checkout,
   * from whoever made the commit (a pull request can add one with `git add -f`), and would answer
   * a request with content no generator returned here: they are ignored, with one warning.
   */
  private trackedRequests(): Set<string> {
    if (this.tracked) return this.tracked;
    this.tracked = new Set();
    const r = spawnSync("git", ["ls-files", "-z", "--", "requests", "packs"], {
      cwd: this.dir,
      encoding: "utf8",
      env: { ...process.env, GIT_TERMINAL_PROMPT: "0" },
      stdio: ["ignore", "pipe", "ignore"],
    });
    // Without git, or outside a repository, nothing is tracked.
    if (r.status !== 0 || r.error) return this.tracked;
    for (const name of r.stdout.split("\0")) if (name !== "") this.tracked.add(path.join(this.dir, name));
    if (this.tracked.size > 0) {
      const where = path.join(this.dir, "requests");
      this.options.warn?.(
        `${this.tracked.size} request index file${this.tracked.size === 1 ? " is" : "s are"} tracked by git under ${where}, so ${this.tracked.size === 1 ? "it came" : "they came"} with a checkout, not from a run here, and ${this.tracked.size === 1 ? "is" : "are"} ignored. The state directory must not be committed: git rm -r --cached ${where}`,
      );
    }
    return this.tracked;
  }

  private requestPath(key: string): string {
    return path.join(this.dir, "requests", key.slice(0, 2), `${key}.json`);
  }

  private objectPath(hash: string): string {
    return path.join(this.dir, "objects", hash.slice(0, 2), hash);
  }

  private recordPath(pair: string, configRef: string): string {
    // Pair ids make one safe path component (instance ids percent-encoded); configRefs are hex.
    const dir = pairKey(pair);
    if (!HEX64.test(configRef) || dir.includes("/") || dir.startsWith(".")) throw new Error(`invalid store key ${pair}/${configRef}`);
    return path.join(this.dir, "pairs", dir, `${configRef}.json`);
  }
}
