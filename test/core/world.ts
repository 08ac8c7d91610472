/**
 * An in-memory world for the pure core: lock file, local store, output files and a remote store,
 * seen by the planner through a StateView and written by the engine through its ports. No disk,
 * no processes: the planner and the engine run as they do in pairflow, only faster.
 */
import { executePlan, type EngineDeps } from "../../src/engine/engine.js";
import { buildGraph } from "../../src/graph/graph.js";
import type { Graph } from "../../src/model/graph.js";
import type { Plan, StateView } from "../../src/model/plan.js";
import type { ArtifactStore, Generator, Guard, OutputFiles, RemoteArtifact } from "../../src/model/ports.js";
import type { LockFile, RequestEntry, StoreRecord } from "../../src/model/records.js";
import type { RunReport, Selection } from "../../src/model/run.js";
import type { Pair, Workflow } from "../../src/model/workflow.js";
import { decider, planWorkflow } from "../../src/plan/plan.js";
import { sha256Hex, textHashes } from "../../src/refs/hash.js";

export interface PairSpec {
  id: string;
  requires?: string[];
  output?: boolean;
  task?: string;
  model?: string;
  inputs?: boolean;
}

export function workflowOf(specs: PairSpec[], name = "mem"): { workflow: Workflow; graph: Graph } {
  const pairs = new Map<string, Pair>();
  for (const s of specs) {
    pairs.set(s.id, {
      id: s.id,
      requires: s.requires ?? [],
      guard: null,
      guardConfig: {},
      generator: "mem",
      generatorConfig: {},
      model: s.model ?? "m1",
      rmax: 0,
      output: s.output ? `out/${s.id}.txt` : undefined,
      inputs: s.inputs ? [`data/${s.id}.txt`] : [],
      prompt: { task: s.task ?? `task of ${s.id}` },
    });
  }
  const { graph, issues } = buildGraph([...pairs.values()]);
  if (!graph) throw new Error(issues.map((i) => i.message).join("; "));
  return { workflow: { name, path: "/mem/workflow.yml", dir: "/mem", root: "/mem", promptsPath: null, pairs, pricing: {} }, graph };
}

const key = (pair: string, ref: string) => `${pair}\0${ref}`;

/** An output file's hashes, made once per file content: every plan reads every output file again. */
const hashed = new WeakMap<Buffer, { raw: string; text: string }>();
function hashesOf(file: Buffer): { raw: string; text: string } {
  let hashes = hashed.get(file);
  if (hashes === undefined) hashed.set(file, (hashes = textHashes(file)));
  return hashes;
}

/** A remote store held in memory, counting what it is asked for. */
export class MemoryRemote {
  readonly name = "the memory remote";
  readonly entries = new Map<string, RemoteArtifact>();
  fetches = 0;
  async fetch(pair: string, ref: string): Promise<RemoteArtifact | undefined> {
    this.fetches++;
    return this.entries.get(key(pair, ref));
  }
  async save(artifact: RemoteArtifact): Promise<void> {
    this.entries.set(key(artifact.record.pair, artifact.record.configRef), artifact);
  }
}

export class World {
  lock: LockFile | null = null;
  records = new Map<string, StoreRecord>();
  /** The request index: what the generator returned for each request key, newest first. */
  requests = new Map<string, RequestEntry[]>();
  objects = new Map<string, Buffer>();
  files = new Map<string, Buffer>();
  inputs = new Map<string, string>();
  remote: MemoryRemote | undefined;
  /** Pair ids the generator was called for, in order. */
  calls: string[] = [];
  /** Makes each execution's content unique (no early cutoff) when true. */
  unique = false;
  /** The generator and the guard of every pair, in place of the built-in memory ones. */
  generate?: Generator;
  judge?: Guard;
  private counter = 0;

  constructor(
    public workflow: Workflow,
    public graph: Graph,
  ) {}

  view(): StateView {
    const remote = this.remote;
    return {
      lock: this.lock,
      record: (pair, ref) => this.records.get(key(pair, ref)),
      hasContent: (hash) => this.objects.has(hash),
      outputHash: (pair) => {
        const file = this.files.get(pair.id);
        return file && hashesOf(file);
      },
      generatedHashes: (pair) =>
        new Set([...this.records.values()].filter((r) => r.pair === pair && r.status === "accepted" && r.source !== "human").map((r) => r.contentHash!)),
      inputHashes: (pair) => (pair.inputs.length > 0 && this.inputs.has(pair.id) ? { [`data/${pair.id}.txt`]: sha256Hex(this.inputs.get(pair.id)!) } : {}),
      fileHashes: () => ({ generator: {}, guard: {} }),
      remote: remote && (async (pair, ref) => (await remote.fetch(pair, ref))?.record),
      text: (pair, hash) => (this.files.get(pair.id) ?? this.objects.get(hash))?.toString("utf8"),
      requests: (k) => (this.requests.get(k) ?? []).filter((e) => this.objects.has(e.contentHash)),
    };
  }

  plan(selection: Selection = {}): Promise<Plan> {
    return planWorkflow(this.workflow, this.graph, this.view(), { selection });
  }

  async run(selection: Selection = {}): Promise<{ plan: Plan; report: RunReport }> {
    const view = this.view();
    const plan = await planWorkflow(this.workflow, this.graph, view, { selection });
    const store: ArtifactStore = {
      record: (pair, ref) => this.records.get(key(pair, ref)),
      content: (hash) => this.objects.get(hash),
      putContent: (data) => {
        const bytes = Buffer.from(data);
        const hash = sha256Hex(bytes);
        this.objects.set(hash, bytes);
        return hash;
      },
      requests: (k) => this.requests.get(k) ?? [],
      putRequest: (k, entry) => {
        const entries = this.requests.get(k) ?? [];
        const known = entries.findIndex((e) => e.contentHash === entry.contentHash);
        if (known === -1) entries.unshift(entry);
        else entries[known] = { ...entries[known]!, verdicts: { ...entries[known]!.verdicts, ...entry.verdicts } };
        this.requests.set(k, entries);
      },
      putRecord: (record) => {
        const k = key(record.pair, record.configRef);
        if (record.status === "rejected" && this.records.get(k)?.status === "accepted") return;
        if (record.status === "accepted" && record.source === "human") return;
        this.records.set(k, record);
      },
    };
    const outputs: OutputFiles = {
      read: (pair) => (pair.output === undefined ? undefined : this.files.get(pair.id)),
      write: (pair, content) => {
        if (pair.output !== undefined) this.files.set(pair.id, content);
      },
      problem: () => null,
      path: (pair) => (pair.output === undefined ? undefined : `/world/${pair.output}`),
    };
    const generate: Generator = async (request) => {
      this.calls.push(request.pairId);
      if (this.generate) return this.generate(request);
      const nonce = this.unique ? ` #${++this.counter}` : "";
      return { content: `${request.pairId} ${sha256Hex(request.prompt).slice(0, 12)}${nonce}\n` };
    };
    let written: LockFile | undefined;
    const deps: EngineDeps = {
      generator: () => generate,
      guard: () => {
        if (this.judge) return this.judge;
        throw new Error("no guards in memory");
      },
      store,
      outputs,
      remote: this.remote && { name: this.remote.name, fetch: (p, r) => this.remote!.fetch(p, r), save: (a) => this.remote!.save(a) },
      lockFile: {
        // The lock this run started from stays as it was (the view and the engine read it): the run
        // writes to one copy of it, made on its first write.
        record: (id, entry) => {
          written ??= { version: 1, workflow: plan.workflow.name, pairs: { ...this.lock?.pairs } };
          if (entry === null) delete written.pairs[id];
          else written.pairs[id] = structuredClone(entry);
          this.lock = written;
        },
        close: () => {},
      },
      scratch: { file: () => "/dev/null", dispose: () => {} },
      decide: decider(plan, view),
    };
    const report = await executePlan(plan, deps, { runId: "mem", lock: this.lock, env: { generator: {}, guard: {} }, concurrency: 3 });
    return { plan, report };
  }
}
