/**
 * Run records under the state directory, one folder per run:
 *
 *   runs/<runId>/plan.json    the plan as made (written once, atomically)
 *   runs/<runId>/trace.jsonl  one event a line, appended as it happens
 *   runs/<runId>/result.json  the report, at the end (atomically)
 *
 * Recording never fails a run: a write that fails becomes one warning and recording stops.
 */
import { closeSync, mkdirSync, openSync, writeSync } from "node:fs";
import path from "node:path";
import { displayPath } from "../config/parse.js";
import type { Plan } from "../model/plan.js";
import type { ChildGroup } from "../model/ports.js";
import type { PairOutcome, RunEvent, RunReport, Selection } from "../model/run.js";
import { writeFileAtomic } from "../workspace/files.js";
import { makeRealDirs } from "../workspace/stateDir.js";

export const RECORD_VERSION = 1;

export interface PlanRecord {
  version: typeof RECORD_VERSION;
  runId: string;
  createdAt: string;
  workflow: { name: string; path: string; workflowRef: string };
  selection: Selection;
  /** Started with --batch: a resume sends its requests through the providers' batch APIs too. */
  batch?: true;
  pairs: { id: string; wave: number; requires: string[]; configRef: string | null; action: "run" | "skip"; reasons: { kind: string; detail: string }[] }[];
}

/**
 * How the run ended: totals and each pair's status and content. The rest (references, attempts,
 * feedback, notes) is in the trace and the plan, and stays there only, which keeps a 1,000-pair
 * record under a megabyte.
 */
export interface ResultRecord extends Pick<RunReport, "version" | "runId" | "workflowRef" | "status" | "totals"> {
  startedAt: string;
  endedAt: string;
  pairs: { id: string; status: PairOutcome["status"]; contentHash: string | null }[];
}

export function runsDir(stateDir: string): string {
  return path.join(stateDir, "runs");
}

export function runDir(stateDir: string, runId: string): string {
  if (!/^[0-9A-Za-z-]+$/.test(runId)) throw new Error(`not a run id: ${runId}`);
  return path.join(runsDir(stateDir), runId);
}

export class RunRecorder {
  private dir: string | undefined;
  /** The open trace.jsonl. */
  private trace: number | undefined;
  private failed = false;
  private startedAt = new Date().toISOString();

  constructor(
    private readonly stateDir: string,
    private readonly selection: Selection,
    private readonly warn: (message: string) => void,
    /** Outcomes from the part of this run before it was interrupted, when resuming. */
    private readonly earlier: Map<string, PairOutcome> = new Map(),
    startedAt?: string,
    /** The run sends every provider pair's requests in batches (--batch). */
    private readonly batch = false,
  ) {
    if (startedAt) this.startedAt = startedAt;
  }

  /** Feed every run event here. */
  readonly record = (event: RunEvent): void => {
    switch (event.type) {
      case "run_start":
        this.dir = runDir(this.stateDir, event.runId);
        if (!event.resumed) this.write("plan.json", planRecord(event.runId, event.plan, this.selection, this.batch));
        this.append({
          event: "run_start",
          runId: event.runId,
          workflowRef: event.plan.workflowRef,
          workflow: event.plan.workflow.path,
          pid: process.pid,
          resumed: event.resumed,
        });
        break;
      case "pair_start":
        // Its reasons are in plan.json.
        this.append({ event: "pair_start", id: event.id, configRef: event.configRef });
        break;
      case "attempt_start":
        this.append({ event: "attempt_start", id: event.id, attempt: event.attempt });
        break;
      case "attempt_end":
        this.append({
          event: "attempt_end",
          id: event.id,
          attempt: event.attempt,
          accepted: event.accepted,
          // No feedback (an accepted attempt) and no tokens (a command) are left out: a fifth of a
          // trace of command pairs was these two fields empty.
          feedback: event.feedback === "" ? undefined : event.feedback,
          tokens: event.tokens ?? undefined,
          durationMs: event.durationMs,
          reused: event.reused,
        });
        break;
      case "pair_end": {
        const o = event.outcome;
        const note = o.note ?? undefined;
        if (o.status === "reused") this.append({ event: "pair_reused", id: o.id, configRef: o.configRef, contentHash: o.contentHash, note });
        // Its configRef is in its pair_start, or in plan.json for a pair that never started.
        else this.append({ event: "pair_end", id: o.id, status: o.status, contentHash: o.contentHash, durationMs: o.durationMs, note });
        break;
      }
      case "restored":
        this.append({ event: "restored", id: event.id, from: event.from });
        break;
      case "warning":
        this.append({ event: "warning", message: event.message });
        break;
      case "batch":
        // Its requests and their custom_ids are in the state directory's record of batches (src/records/batches.ts).
        this.append({ event: "batch", provider: event.provider, batch: event.id, state: event.state, requests: event.requests, counts: event.counts });
        break;
      case "run_end": {
        const report = this.merged(event.report);
        this.append({ event: "run_end", status: report.status, totals: report.totals });
        const result: ResultRecord = {
          version: report.version,
          runId: report.runId,
          workflowRef: report.workflowRef,
          status: report.status,
          totals: report.totals,
          startedAt: this.startedAt,
          endedAt: new Date().toISOString(),
          pairs: report.pairs.map((p) => ({ id: p.id, status: p.status, contentHash: p.contentHash })),
        };
        this.write("result.json", result);
        this.close();
        break;
      }
    }
  };

  /**
   * Records a child process group before it runs anything (see src/processes): if pairflow is
   * killed, `resume` finds the groups whose attempt has no end recorded and kills what is left of
   * them before their attempts are made again. A group is killed whole before its command's
   * outcome returns, so the end of the pair's attempt records the end of its groups too.
   */
  readonly process = (pair: string, group: ChildGroup): void => {
    this.append({ event: "process", id: pair, pid: group.pid, startTime: group.startTime });
  };

  /**
   * The whole run's report: a pair executed before an interruption shows as executed, not as
   * reused by the resumed part.
   */
  merged(report: RunReport): RunReport {
    if (this.earlier.size === 0) return report;
    const pairs = report.pairs.map((p) => {
      const before = this.earlier.get(p.id);
      return p.status === "reused" && before?.status === "executed" && before.contentHash === p.contentHash ? before : p;
    });
    const count = (s: string) => pairs.filter((p) => p.status === s).length;
    return { ...report, pairs, totals: { ...report.totals, executed: count("executed"), reused: count("reused") } };
  }

  /**
   * One line, written through to the operating system before this returns (a killed pairflow loses
   * none), on a descriptor opened once: opening the file and making its directory for each of
   * the half-dozen events of every pair cost more than the write.
   */
  private append(event: Record<string, unknown>): void {
    this.guard(() => {
      if (this.trace === undefined) {
        // Never into a link: runs/<runId> is made one real directory at a time (src/workspace/stateDir.ts).
        mkdirSync(this.stateDir, { recursive: true });
        makeRealDirs(this.stateDir, this.dir!);
        this.trace = openSync(path.join(this.dir!, "trace.jsonl"), "a");
      }
      const bytes = Buffer.from(JSON.stringify({ t: new Date().toISOString(), ...event }) + "\n", "utf8");
      for (let done = 0; done < bytes.length;) done += writeSync(this.trace, bytes, done, bytes.length - done);
    });
  }

  /** Closes the trace; a later event opens it again. The run's end closes it too. */
  close(): void {
    if (this.trace === undefined) return;
    try {
      closeSync(this.trace);
    } catch {
      // nothing left to lose: every line was written already
    }
    this.trace = undefined;
  }

  private write(name: string, value: unknown): void {
    this.guard(() => writeFileAtomic(path.join(this.dir!, name), JSON.stringify(value) + "\n"));
  }

  private guard(write: () => void): void {
    if (this.failed || !this.dir) return;
    try {
      write();
    } catch (err) {
      this.failed = true;
      this.warn(`could not write the run record in ${displayPath(this.dir, process.cwd())} (${(err as Error).message}); the run goes on without it`);
    }
  }
}

/**
 * The child process groups a run's trace records as started and not as ended: in flight when it
 * stopped. A group ends with its pair's attempt (or the pair); traces written before that was so
 * end each group with a process_end event of its own.
 */
export function inFlightGroups(events: readonly { event: string; [key: string]: unknown }[]): ChildGroup[] {
  const open = new Map<string, { pair: unknown; group: ChildGroup }>();
  for (const e of events) {
    if (e.event === "attempt_end" || e.event === "pair_end") {
      for (const [key, { pair }] of open) if (pair === e.id) open.delete(key);
    }
    if (typeof e.pid !== "number" || typeof e.startTime !== "string") continue;
    const key = `${e.pid}@${e.startTime}`;
    if (e.event === "process") open.set(key, { pair: e.id, group: { pid: e.pid, startTime: e.startTime } });
    else if (e.event === "process_end") open.delete(key);
  }
  return [...open.values()].map((o) => o.group);
}

function planRecord(runId: string, plan: Plan, selection: Selection, batch: boolean): PlanRecord {
  return {
    version: RECORD_VERSION,
    runId,
    createdAt: new Date().toISOString(),
    workflow: { name: plan.workflow.name, path: plan.workflow.path, workflowRef: plan.workflowRef },
    selection,
    ...(batch ? { batch: true as const } : {}),
    // Reasons as people read them: their typed component is the plan's, and would add a tenth to the records.
    pairs: plan.pairs.map((p) => ({
      id: p.id,
      wave: p.wave,
      requires: p.requires,
      configRef: p.configRef,
      action: p.action,
      reasons: p.reasons.map(({ kind, detail }) => ({ kind, detail })),
    })),
  };
}
