import type { TokenUsage } from "./records.js";
import type { Reason, Plan } from "./plan.js";

/** A run: what it was asked to do, what happened to each pair, and the events it reports as it goes. */

export interface Selection {
  /** Run every pair. */
  force?: boolean;
  /** Run these pairs (and nothing outside them and their dependencies). */
  only?: string[];
  /** Run this pair and everything downstream of it. */
  from?: string;
}

/** What an interrupted run had done, so resuming it repeats none of it. */
export interface ResumeState {
  /** Pairs that ended executed or reused: never forced again. */
  finished: Set<string>;
  /** Attempts already made by pairs that had not finished, under the configRef they ran with. */
  attempts: Map<string, { configRef: string; attempts: AttemptRecord[] }>;
}

export interface AttemptRecord {
  attempt: number;
  accepted: boolean;
  feedback: string;
  tokens: TokenUsage | null;
  durationMs: number;
  /** Answered without a call by an artifact generated for the same request (see src/refs/request.ts). */
  reused?: Reused;
}

/**
 * How an attempt was answered from the request index: `request`, an artifact this guard had
 * accepted already; `rejudged`, one it had never judged, judged and accepted now.
 */
export type ReuseKind = "request" | "rejudged";

export interface Reused {
  kind: ReuseKind;
  /** The pair it was generated for, and when. */
  pair: string;
  at: string;
  /** What the call that generated it used, as the provider reported it: what this attempt did not buy. */
  tokens: TokenUsage | null;
}

/** interrupted: cancelled in flight, or never started, because the run was stopped. */
export type PairStatus = "executed" | "reused" | "failed" | "blocked" | "interrupted";

export interface PairOutcome {
  id: string;
  configRef: string | null;
  status: PairStatus;
  attempts: AttemptRecord[];
  contentHash: string | null;
  reasons: Reason[];
  durationMs: number;
  /** What a person should know: early cutoff, a hand edit kept, why it failed or was blocked. */
  note: string | null;
  /**
   * A reused pair's: what generating its artifact used, as recorded when it was accepted (what this
   * run did not buy); null when that was not reported.
   */
  avoided?: TokenUsage | null;
}

/**
 * A provider batch as it goes: submitted (its id recorded), progress (the provider's counts
 * changed), ended (its results collected), cancelled (pairflow asked the provider to cancel it),
 * waiting (not ended, and the run does not wait for it: a later run or resume collects it).
 */
export interface BatchEvent {
  type: "batch";
  provider: "openai" | "anthropic";
  /** The provider's id of the batch. */
  id: string;
  state: "submitted" | "progress" | "ended" | "cancelled" | "waiting";
  /** Requests in it. */
  requests: number;
  counts: BatchCounts;
}

/** A batch's requests by state, as the provider counts them. */
export interface BatchCounts {
  processing: number;
  succeeded: number;
  /** Errored (Anthropic) or failed (OpenAI). */
  errored: number;
  expired: number;
  canceled: number;
}

export interface RunReport {
  version: 1;
  runId: string;
  workflowRef: string;
  /** waiting: pairs wait for provider batches the run did not wait for (`--no-wait`); a later run or resume collects them. */
  status: "success" | "failed" | "interrupted" | "waiting";
  pairs: PairOutcome[];
  totals: { pairs: number; executed: number; reused: number; failed: number; blocked: number; interrupted: number; tokens: TokenUsage; durationMs: number };
  /** Whether the run's commands ran confined; absent when it started none. */
  sandbox?: SandboxState;
  /** What the run bought and what it reused instead (src/estimate/spend.ts). */
  spend?: Spend;
  /** How its provider calls were paced by the providers' rate limits (src/schedule/); absent when it made none. */
  pacing?: PacingReport;
}

/** How a run's provider calls were paced by the providers' rate limits. */
export interface PacingReport {
  /** Calls that had their turn (a call refused and asked again counts each time). */
  calls: number;
  /** Of those, calls held for their budget before they went. */
  held: number;
  /** Time some call was held for its budget, in milliseconds (each budget's time, added). */
  waitedMs: number;
  /** Answers that refused a call for the rate limit (429): each a wait, never a failed attempt. */
  refused: number;
  /** Each budget's endpoint and the limits it went by (its buckets' sizes), as far as known. */
  budgets: { host: string; requestsPerMinute?: number; tokensPerMinute?: number }[];
}

/** What a run bought, and what it did not have to, at current prices (src/estimate/spend.ts). */
export interface Spend {
  bought: {
    /** Generator calls made. */
    calls: number;
    /** Of those, made through a provider's batch API, at its batch price. */
    batched: number;
    /** As the providers reported them, with what their prompt caches served and took; null when none did (a command reports none). */
    tokens: TokenUsage | null;
    /** USD at current prices; null when part of it is unknown (no price, or no usage reported for a priced model). */
    cost: number | null;
  };
  reused: {
    /** Pairs reused whole: their configRef had an accepted artifact. */
    unchanged: number;
    /** Attempts answered from the request index by an artifact the pair's guard had accepted. */
    request: number;
    /** Attempts answered by an artifact the pair's guard judged anew and accepted. */
    rejudged: number;
  };
  /** What the reused artifacts used when they were generated: what this run did not buy. */
  avoided: {
    tokens: TokenUsage;
    /** USD at current prices, over what has a price and recorded usage. */
    cost: number;
    /** Reused artifacts whose usage or price is unknown: left out of `cost`. */
    unknown: number;
  };
}

/** How a run's commands ran: confined (and by what), or not, and why not. */
export interface SandboxState {
  mode: "auto" | "required" | "off";
  confined: boolean;
  /** What confined them. */
  by?: string;
  /** Why they were not confined. */
  reason?: string;
  /** Confined, why guards see the repository read-only (no writable layer can be made here). */
  layer?: string;
}

export type RunEvent =
  | { type: "run_start"; runId: string; plan: Plan; resumed: boolean }
  | { type: "pair_start"; id: string; configRef: string; reasons: Reason[] }
  | { type: "attempt_start"; id: string; attempt: number }
  | {
      type: "attempt_end";
      id: string;
      attempt: number;
      of: number;
      accepted: boolean;
      feedback: string;
      tokens: TokenUsage | null;
      durationMs: number;
      /** The generator's stderr, when it had any (shown with --verbose; not recorded). */
      stderr?: string;
      /** Answered from the request index, with no call. */
      reused?: Reused;
    }
  | { type: "pair_end"; outcome: PairOutcome }
  | { type: "restored"; id: string; from: string }
  | BatchEvent
  | { type: "warning"; message: string }
  | { type: "run_end"; report: RunReport };
