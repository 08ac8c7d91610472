/**
 * The contracts between the run engine and what it drives: generators produce an artifact from a
 * rendered prompt; guards accept or reject it. Both are plain async functions looked up by name.
 */
import type { GuardRef, Pair } from "./workflow.js";
import type { BatchRecord, LockFile, RequestEntry, TokenUsage, StoreRecord } from "./records.js";

export interface GenerateRequest {
  pairId: string;
  /** 1 for the first attempt, 2 for the first retry, ... */
  attempt: number;
  model: string | null;
  /** The rendered prompt (see src/prompt/render.ts). */
  prompt: string;
  /**
   * The length of the prompt's beginning that other requests of the run begin with too (see
   * sharedPrefixes in src/prompt/render.ts): a provider that wants it marked for its prompt cache
   * (Anthropic's cache_control) gets the prompt as two text blocks cut there, the same text.
   */
  cacheablePrefix?: number;
  /** The dependencies' accepted artifacts the prompt holds, for generators that hand them over as files too. */
  dependencies?: readonly { id: string; content: string }[];
  /** The pair's generator_config with workflow defaults applied, numbers as plain numbers. */
  config: Record<string, unknown>;
  /** The workflow file's directory: where commands run and relative paths start. */
  cwd: string;
  /** Environment to read provider keys from and to pass to commands. */
  env: NodeJS.ProcessEnv;
  /** Aborted when the run is cancelled; a generator stops its work and rejects. */
  signal: AbortSignal;
  /** A larger artifact fails the attempt; a generator never holds much more than this in memory. */
  maxOutputBytes?: number;
  /** Told of each process group started, before it does any work (see ChildGroup). */
  onProcess?: OnProcess;
  /** Where commands run confined; absent: they run unconfined. */
  sandbox?: Sandbox;
  /** What each command may take; absent: no limit of pairflow's (tests that start commands directly). */
  limits?: CommandLimits;
  /** Runs its commands traced, and is told what they read; absent: untraced. */
  trace?: ReadTrace;
  /** Paces provider calls by the run's rate budgets (src/schedule/); absent: the process's own. */
  pacing?: Pacing;
}

/** Limits a caller or a workflow gives for an endpoint that does not say its own. */
export interface RateLimits {
  requestsPerMinute?: number;
  tokensPerMinute?: number;
}

/** What a request will take from a provider's budget: its prompt tokens and the output it may ask for (max_tokens). */
export interface RateCost {
  input: number;
  output: number;
}

/**
 * Paces the calls of a run so that they stay within what each provider's budget allows: one budget
 * per endpoint, key and model (named by a hash, never the key), shared by every call of the run.
 */
export interface Pacing {
  /**
   * Waits until the budget allows a call of `cost`, then gives it its turn. Rejects with
   * RateLimitWaitError when the wait would end past the run's longest wait, and when `signal` aborts.
   * `shared` names the beginning the call shares with others, long enough for the provider's prompt
   * cache: the first such call goes alone, the others once it is answered.
   */
  turn(budget: { id: string; host: string; limits?: RateLimits }, cost: RateCost, signal: AbortSignal, shared?: string): Promise<PacedTurn>;
}

/** A call's turn: it says how its call ended, with the answer's headers, once. */
export interface PacedTurn {
  /** Answered (any status but a rate limit): the provider's accounting as its headers give it. */
  answered(header: (name: string) => string | null): void;
  /** Refused for the rate limit (429): the call waits for its turn again, not counted as an attempt. */
  limited(header: (name: string) => string | null): void;
  /** No answer (timed out, no connection). */
  failed(): void;
}

/**
 * Confines the commands a run starts, so that what they run (code a model wrote, scripts a pull
 * request brought) cannot see pairflow's process or write outside their own scratch space (see
 * src/processes/sandbox.ts).
 */
export interface Sandbox {
  readonly name: string;
  /** Whether a command can have a writable layer over the repository here (SandboxCommand.layer). */
  readonly layered: boolean;
  /** The program and arguments that run a command confined, up to the command. */
  confine(command: SandboxCommand): string[];
}

/** A command to confine: it runs in `cwd`, can read `readable` (files pairflow hands it), and has the network or not. */
export interface SandboxCommand {
  cwd: string;
  readable: readonly string[];
  network: boolean;
  /** The size of its /tmp and of its home directory, each, in bytes; absent: the system's default. */
  tmpBytes?: number;
  /**
   * A writable layer over the repository, thrown away with the command (a guard's tools write
   * their caches there), with the candidate at its output path when `place` is given.
   */
  layer?: { place?: { candidate: string; at: string } };
}

/**
 * What one command may take, set by whoever starts pairflow (command-line flags, the action's
 * inputs), never by the workflow file, which a pull request can change (src/processes/limits.ts).
 */
export interface CommandLimits {
  /** Processes at once (the command's own and all it starts). */
  processes: number;
  /** Memory, in bytes: of the command whole where a cgroup can be made, else of each process. */
  memoryBytes: number;
  /** The size of its /tmp and of its home directory in the sandbox, each, in bytes. */
  tmpBytes: number;
  /** Wall time, in seconds: a workflow's longer `timeout` is cut to this. */
  timeSeconds: number;
}

/** Runs commands under a tracer that records the files they open (`--trace-reads`, src/processes/trace.ts). */
export interface ReadTracer {
  /** The program and arguments, up to the command, that run it traced, writing what it opens to descriptor 3. */
  argv(): string[];
}

/** The tracer of one pair's commands: `read` is told the files each traced command read (absolute paths). */
export interface ReadTrace extends ReadTracer {
  read(files: readonly string[]): void;
}

/**
 * A child process group a command started: its leader's pid and start time, so that a run resumed
 * after pairflow was killed can stop what is left of it, and never a stranger that got the pid.
 */
export interface ChildGroup {
  pid: number;
  /** The kernel's start time of the leader; "" where the platform does not say. */
  startTime: string;
}

/**
 * Records a process group before it runs anything. The group is killed whole before the command's
 * outcome returns, so the end of what started it is the group's end too.
 */
export type OnProcess = (group: ChildGroup) => void;

export interface GenerateResult {
  /** The artifact: bytes as produced (text from providers). */
  content: string | Buffer;
  /** Token usage as the provider reported it; absent for generators that use no model. */
  tokens?: TokenUsage;
  /** What the generator wrote to stderr (its last lines), for `--verbose`; a failure carries it in its message. */
  stderr?: string;
  /**
   * The answer an earlier run already received and used for this very request (a provider batch's
   * result, kept until the run that needs it is over), received then: no call was made now, and
   * nothing was bought. `tokens` are what it used then.
   */
  replayed?: { at: string };
}

/**
 * A generator could not produce an artifact (non-zero exit, timeout, HTTP error after retries,
 * missing credentials). The message is the reason shown to people: short, no secrets.
 */
export class GeneratorError extends Error {
  override name = "GeneratorError";
}

export type Generator = (request: GenerateRequest) => Promise<GenerateResult>;

/**
 * The request went into a provider's batch, and the run does not wait for it (`--no-wait`): a
 * later run or resume collects the result. The attempt has not happened yet; the pair waits.
 */
export class BatchPendingError extends GeneratorError {
  override name = "BatchPendingError";
}

/**
 * A call waited for a provider's rate limit as long as the run lets one wait: its pair is
 * interrupted, not failed, and a later run or resume makes the attempt.
 */
export class RateLimitWaitError extends GeneratorError {
  override name = "RateLimitWaitError";
}

/**
 * How the engine works with a generator that gathers calls into provider batches
 * (src/generators/batch.ts). A batch holds one wave: what every pair in flight whose calls are
 * batched asks before any of them can go on. So such a pair waits for its batch without holding
 * one of the run's slots, and the engine says when it starts and ends, so the batch is sent as
 * soon as every one of them is waiting on it (or has ended).
 */
export interface BatchWave {
  /** Whether the pair's generator calls may be batched (or collected from a batch sent earlier). */
  batched(pair: Pair): boolean;
  /** A batched pair started: the next batch waits until it calls its generator or ends. */
  join(pair: string): void;
  /** It ended. */
  leave(pair: string): void;
}

/** Where the batches a run gave providers are kept until their results are used (src/records/batches.ts). */
export interface BatchLedger {
  /** Every batch not yet done with: this machine's, and those a CI snapshot brought. */
  batches(): BatchRecord[];
  /** Records a batch as it is now, written through before this returns. */
  put(batch: BatchRecord): void;
  /** Forgets batches done with. */
  drop(keys: readonly string[]): void;
  /** Keeps a result's content (in the local store); its hash. */
  putContent(content: string): string;
  content(hash: string): string | undefined;
}

export interface GuardRequest {
  pairId: string;
  content: string;
  /** A file holding exactly `content`, for guards that run commands on it. */
  artifactPath: string;
  /**
   * Where the artifact will live, when the pair has an output: a guard's command finds the
   * candidate there, in the writable layer the sandbox gives it (or written there meanwhile,
   * where it has none: see `staged`).
   */
  place?: string;
  /** The candidate is at `place` in the workspace already (staged by the run for this guard): no layer needs to put it there. */
  staged?: boolean;
  /** The pair's guard_config, numbers as plain numbers. */
  config: Record<string, unknown>;
  /** Sub-guards, for the composite guard. */
  guards?: GuardRef[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
  onProcess?: OnProcess;
  /** Where commands run confined; absent: they run unconfined. */
  sandbox?: Sandbox;
  /** What each command may take; absent: no limit of pairflow's (tests that start commands directly). */
  limits?: CommandLimits;
  /** Runs its commands traced, and is told what they read; absent: untraced. */
  trace?: ReadTrace;
}

export interface GuardResult {
  accepted: boolean;
  /** Why it was rejected (shown to the generator on retry through feedback_wrapper); may be empty on acceptance. */
  feedback: string;
}

/** A guard that could not be evaluated (bad configuration, unknown guard): the pair fails with this message. */
export class GuardConfigError extends Error {
  override name = "GuardConfigError";
}

/**
 * A guard could not judge the artifact (a program missing, a crash, a status that is neither an
 * acceptance nor a rejection, a timeout, a limit): no verdict, so the pair fails with the message
 * (one line naming the cause) and the generator is not asked again. `output` is what the guard
 * printed last, for the record.
 */
export class GuardError extends Error {
  override name = "GuardError";
  constructor(
    message: string,
    readonly output = "",
  ) {
    super(output ? `${message}; last output:\n${output}` : message);
  }
}

export type Guard = (request: GuardRequest) => Promise<GuardResult>;

export interface RemoteArtifact {
  /** An accepted record: contentHash is the sha256 of content. */
  record: StoreRecord;
  content: Buffer;
}

export interface RemoteStore {
  /** How it is named in messages, e.g. "the GitHub Actions cache". */
  readonly name: string;
  /** The accepted artifact for this configuration, checked against its hash; undefined on a miss or any failure. */
  fetch(pair: string, configRef: string): Promise<RemoteArtifact | undefined>;
  save(artifact: RemoteArtifact): Promise<void>;
  /**
   * The accepted record for this configuration without downloading its content, for a store that
   * can tell (a snapshot's manifest); absent: `fetch` answers.
   */
  lookup?(pair: string, configRef: string): Promise<StoreRecord | undefined>;
  /** The accepted state the store last saved for the workflow, as a lock file; null when it has none. */
  acceptedState?(): LockFile | null;
  /** What pairflow's generators returned for this request, as the store last saved it (see ArtifactStore.requests). */
  requests?(key: string): RequestEntry[];
  /** The content of a request index entry, checked against its hash; undefined on a miss or any failure. */
  requestContent?(hash: string): Promise<Buffer | undefined>;
  /** Keeps an artifact a generator returned, or a verdict on one, for the store's next save. */
  saveRequest?(key: string, entry: RequestEntry, content: Buffer): void;
  /** The provider batches the store last saved as not yet done with (see BatchRecord). */
  batches?(): BatchRecord[];
  /** Saves the workflow's state soon, not only at the end: a batch was just submitted, and a lost runner must not lose it. */
  saveSoon?(): void;
}

/** Where accepted artifacts are kept on this machine: content by hash, one record per (pair, configRef). */
export interface ArtifactStore {
  /** What pairflow's generators returned for this request, newest first (see src/refs/request.ts). */
  requests(key: string): RequestEntry[];
  /** Records an artifact generated for a request, or a guard's verdict on one already recorded. */
  putRequest(key: string, entry: RequestEntry): void;
  record(pair: string, configRef: string): StoreRecord | undefined;
  /** Content by hash, verified against it; undefined when absent or damaged. */
  content(hash: string): Buffer | undefined;
  /** Stores content and returns its hash. */
  putContent(data: Buffer | string): string;
  putRecord(record: StoreRecord): void;
}

/** Pairs' output files in the workspace. */
export interface OutputFiles {
  read(pair: Pair): Buffer | undefined;
  /** Writes atomically: readers see the old content or the new, never a mix. */
  write(pair: Pair, content: Buffer): void;
  /** Why the pair's output cannot be written where it points (outside the repository, a link, not a file), or null. */
  problem(pair: Pair): string | null;
  /** Where the pair's output lives, when it has one. */
  path(pair: Pair): string | undefined;
  /** Writes a candidate at the output's path for a guard to judge there; returns what puts the file back (src/workspace/staged.ts). */
  stage?(pair: Pair, content: Buffer): () => void;
}

/** Scratch files for one run (the artifact a command guard reads), removed when the run ends. */
export interface Scratch {
  /** Writes `content` to a fresh file and returns its path. */
  file(name: string, content: string | Uint8Array): string;
  dispose(): void;
}
