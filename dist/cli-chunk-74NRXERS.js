#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import {
  acceptedBytes,
  pairKey,
  realLockPath
} from "./cli-chunk-TPNKQGFG.js";
import {
  lockPathFor
} from "./cli-chunk-LAOPAIVL.js";
import {
  byProviderAndModel,
  componentDigests,
  configRef,
  contentNeeded,
  guardKey,
  plannedComponents,
  renderPromptParts,
  requestKey,
  sharedPrefixes,
  withObserved
} from "./cli-chunk-YKULHKX5.js";
import {
  lockEntry
} from "./cli-chunk-7NHSQKXA.js";
import {
  DEFAULT_MAX_OUTPUT_BYTES,
  UsageError,
  commandNetwork,
  dict,
  plain,
  utf8Text
} from "./cli-chunk-BXCSBTXN.js";

// src/engine/engine.ts
import { randomBytes } from "node:crypto";
import path from "node:path";

// src/model/ports.ts
var GeneratorError = class extends Error {
  name = "GeneratorError";
};
var BatchPendingError = class extends GeneratorError {
  name = "BatchPendingError";
};
var RateLimitWaitError = class extends GeneratorError {
  name = "RateLimitWaitError";
};
var GuardConfigError = class extends Error {
  name = "GuardConfigError";
};
var GuardError = class extends Error {
  constructor(message, output = "") {
    super(output ? `${message}; last output:
${output}` : message);
    this.output = output;
  }
  output;
  name = "GuardError";
};

// src/model/limiter.ts
function limiter(n) {
  let running = 0;
  const queue = [];
  return async (task) => {
    if (running >= n) await new Promise((resolve) => queue.push(resolve));
    running++;
    try {
      return await task();
    } finally {
      running--;
      queue.shift()?.();
    }
  };
}

// src/engine/engine.ts
var DEFAULT_CONCURRENCY = 4;
function newRunId(now = /* @__PURE__ */ new Date()) {
  return now.toISOString().replace(/[-:.]/g, "") + "-" + randomBytes(2).toString("hex");
}
function executePlan(plan, deps, options) {
  return new Run(plan, deps, options).execute();
}
var Run = class {
  constructor(plan, deps, options) {
    this.plan = plan;
    this.deps = deps;
    this.options = options;
    const { workflow } = plan;
    this.lock = { version: 1, workflow: workflow.name, pairs: Object.assign(dict(), options.lock?.pairs) };
    for (const id of Object.keys(this.lock.pairs)) {
      if (!workflow.pairs.has(id)) {
        delete this.lock.pairs[id];
        this.gone.push(id);
      }
    }
    this.signal = options.signal ?? new AbortController().signal;
    this.stopped = new Promise((resolve) => {
      for (const s of [this.signal, options.stop]) s?.addEventListener("abort", () => resolve(), { once: true });
    });
  }
  plan;
  deps;
  options;
  decided = /* @__PURE__ */ new Map();
  outcomes = /* @__PURE__ */ new Map();
  /** Content produced or read during this run, by pair id. */
  contents = /* @__PURE__ */ new Map();
  lock;
  /** Pairs that left the workflow, whose entries leave the lock file. */
  gone = [];
  signal;
  started = Date.now();
  /** Settles when the run is asked to stop, so the scheduler notices at once. */
  stopped;
  /** Counts down the dependents of a pair that ended (set by the scheduler). */
  ended = () => {
  };
  /** Saves to the remote store still in flight; the run waits for them before it reports. */
  saves = [];
  /** The first write that failed: the run stops and ends with it. */
  fatal;
  /** How much of each running pair's prompt other running pairs' prompts begin with (see sharedPrefixes). */
  sharing;
  /** Pairs that wait for a provider batch the run does not wait for (`--no-wait`). */
  waiting = 0;
  /** Judging by pairs that hold no slot (batched ones) is limited to the run's concurrency all the same. */
  judging;
  /** Frees the slot of a running pair before it ends (see writeTurn); set by the scheduler. */
  releases = /* @__PURE__ */ new Map();
  /** Settles when a slot was freed early, so the scheduler starts the next pair at once. */
  freed = settleable();
  async execute() {
    this.emit({ type: "run_start", runId: this.options.runId, plan: this.plan, resumed: this.options.resume !== void 0 });
    try {
      for (const id of this.gone) this.deps.lockFile.record(id, null);
      await this.schedule();
      await Promise.all(this.saves);
    } finally {
      this.deps.scratch.dispose();
      try {
        this.deps.lockFile.close();
      } catch (err) {
        this.fatal ??= err;
      }
    }
    if (this.fatal) throw this.fatal;
    const pairs = this.plan.pairs.map((p) => this.outcomes.get(p.id));
    const count = (s) => pairs.filter((p) => p.status === s).length;
    const tokens = { input: 0, output: 0 };
    for (const p of pairs) for (const a of p.attempts) if (a.tokens) addTokens(tokens, a.tokens);
    const stopped = this.signal.aborted || (this.options.stop?.aborted ?? false);
    const status = count("interrupted") > 0 && (stopped || this.waiting === 0) ? "interrupted" : count("interrupted") > 0 ? "waiting" : count("failed") + count("blocked") > 0 ? "failed" : "success";
    const report = {
      version: 1,
      runId: this.options.runId,
      workflowRef: this.plan.workflowRef,
      status,
      pairs,
      totals: {
        pairs: pairs.length,
        executed: count("executed"),
        reused: count("reused"),
        failed: count("failed"),
        blocked: count("blocked"),
        interrupted: count("interrupted"),
        tokens,
        durationMs: Date.now() - this.started
      }
    };
    this.emit({ type: "run_end", report });
    return report;
  }
  get stopping() {
    return this.fatal !== void 0 || this.signal.aborted || (this.options.stop?.aborted ?? false);
  }
  /**
   * Starts each pair once all its dependencies have ended, in plan order among those ready: linear
   * in pairs and dependencies, since each pair's end only counts down its own dependents.
   */
  async schedule() {
    const concurrency = Math.max(1, this.options.concurrency ?? DEFAULT_CONCURRENCY);
    this.judging = limiter(concurrency);
    const batches = this.deps.batches;
    const { requires, dependents } = this.plan.graph;
    const pairs = this.plan.pairs;
    const position = new Map(pairs.map((p, i) => [p.id, i]));
    const waitingFor = new Map(pairs.map((p) => [p.id, requires.get(p.id).length]));
    const shard = this.deps.shard;
    const slotless = (i) => shard !== void 0 && pairs[i].action === "run" && !shard.owns(pairs[i].id) || (batches?.batched(this.plan.workflow.pairs.get(pairs[i].id)) ?? false);
    const ready = [];
    const readyFree = [];
    const isReady = (i) => insertSorted(slotless(i) ? readyFree : ready, i);
    pairs.forEach((p, i) => {
      if (waitingFor.get(p.id) === 0) isReady(i);
    });
    this.ended = (id) => {
      for (const d of dependents.get(id)) {
        const left = waitingFor.get(d);
        if (left === void 0) continue;
        waitingFor.set(d, left - 1);
        if (left === 1) isReady(position.get(d));
      }
    };
    const inFlight = /* @__PURE__ */ new Set();
    let busy = 0;
    const models = this.options.modelPairs;
    const isModel = (id) => models?.is(this.plan.workflow.pairs.get(id)) ?? false;
    let busyModels = 0;
    const room = (i) => isModel(pairs[i].id) ? busyModels < models.concurrency : busy < concurrency;
    const start = (id, slot) => {
      const needs = this.plan.byId.get(id).action === "run" ? requires.get(id) : [];
      const stopped = needs.filter((d) => ["failed", "blocked"].includes(this.outcomes.get(d)?.status ?? ""));
      const waits = needs.filter((d) => this.outcomes.get(d)?.status === "interrupted");
      if (this.stopping) this.finish({ ...this.blocked(id, "not started: the run was interrupted"), status: "interrupted" });
      else if (stopped.length > 0) this.finish(this.blocked(id, `blocked by ${stopped.join(", ")}`));
      else if (waits.length > 0) this.finish({ ...this.blocked(id, `not started: ${waits.join(", ")} did not finish`), status: "interrupted" });
      else {
        const model = slot && isModel(id);
        if (model) busyModels++;
        else if (slot) busy++;
        const batched = !slot && batches !== void 0 && batches.batched(this.plan.workflow.pairs.get(id));
        if (batched) batches.join(id);
        let held = slot;
        const release2 = () => {
          if (!held) return;
          held = false;
          if (model) busyModels--;
          else busy--;
        };
        this.releases.set(id, () => {
          release2();
          this.freed.resolve();
        });
        const task = this.handle(id).finally(() => {
          inFlight.delete(task);
          this.releases.delete(id);
          release2();
          if (batched) batches.leave(id);
        });
        inFlight.add(task);
      }
    };
    while (ready.length > 0 || readyFree.length > 0 || inFlight.size > 0) {
      for (; ; ) {
        if (readyFree.length > 0) start(pairs[readyFree.shift()].id, false);
        else {
          const at = ready.findIndex(room);
          if (at < 0) break;
          start(pairs[ready.splice(at, 1)[0]].id, true);
        }
      }
      if (inFlight.size > 0) await Promise.race(this.stopping ? [...inFlight, this.freed.promise] : [...inFlight, this.stopped, this.freed.promise]);
      if (this.freed.settled) this.freed = settleable();
    }
  }
  /**
   * A pair's whole course. A write that fails (a full disk, a read-only store) fails the pair and
   * stops the run: nothing new starts, what is in flight finishes, and the run ends with that error.
   */
  async handle(id) {
    try {
      await this.course(id);
    } catch (err) {
      this.fatal ??= err;
      if (!this.outcomes.has(id)) this.finish({ ...this.blocked(id, err.message), status: "failed" });
    }
  }
  async course(id) {
    let decision = this.plan.byId.get(id);
    const pair = this.plan.workflow.pairs.get(id);
    const unaccepted = pair.requires.filter((dep) => ["failed", "blocked", "interrupted"].includes(this.outcomes.get(dep)?.status ?? ""));
    if (decision.configRef === null && unaccepted.length > 0) {
      if (decision.action === "skip") return this.reuse(decision, pair);
      return this.finish(this.blocked(id, `blocked by ${unaccepted.join(", ")}`));
    }
    if (decision.configRef === null) {
      decision = await this.deps.decide(id, this.decided);
      if (decision.action === "skip" && decision.artifact.content === null && contentNeeded(this.plan.workflow, this.plan.graph, this.plan.byId, id))
        decision = await this.deps.decide(id, this.decided, { lost: true });
      if (decision.configRef === null && decision.action === "run") {
        const unknown = pair.requires.filter((dep) => this.decided.get(dep).configRef === null);
        return this.finish(
          this.blocked(
            id,
            `blocked: the reference of ${unknown.join(", ")} is not known until what ${unknown.length === 1 ? "it depends" : "they depend"} on is accepted`
          )
        );
      }
    }
    if (decision.action === "skip") await this.reuse(decision, pair);
    else if (this.deps.shard && !this.deps.shard.owns(id)) await this.awaitShard(decision, this.deps.shard);
    else await this.run(decision, pair);
  }
  // -------------------------------------------------------------------------------------------
  // Reuse
  async reuse(d, pair) {
    const artifact = d.artifact;
    let note = null;
    const recorded = lockEntry(this.lock, d.id);
    const spent = d.configRef === null ? void 0 : recorded?.configRef === d.configRef ? recorded.tokens : this.deps.store.record(d.id, d.configRef)?.tokens;
    if (artifact.edited) {
      const file = this.deps.outputs.read(pair);
      const content = acceptedBytes(file, artifact.contentHash) ?? file;
      this.contents.set(d.id, content);
      const previous = lockEntry(this.lock, d.id);
      if (d.configRef === null) {
        note = `output ${pair.output} is a hand edit, kept; its lock entry is left as it was until what it depends on is accepted`;
      } else if (d.stale) {
      } else if (previous?.source !== "human" || previous.configRef !== d.configRef || previous.contentHash !== artifact.contentHash) {
        this.deps.store.putContent(content);
        this.recordAccepted(d, pair, { contentHash: artifact.contentHash, source: "human", attempts: [], durationMs: 0 }, content);
        note = `output ${pair.output} was edited by hand; kept and recorded as a human artifact`;
      } else {
        note = `output ${pair.output} is a hand edit, kept`;
      }
    } else {
      const remote = artifact.source === "remote" || artifact.content === "remote" ? await this.deps.remote?.fetch(d.id, d.configRef) : void 0;
      if (remote) {
        this.deps.store.putContent(remote.content);
        this.deps.store.putRecord(remote.record);
        this.emit({ type: "restored", id: d.id, from: this.deps.remote.name });
      }
      const previous = lockEntry(this.lock, d.id);
      if (!d.stale && (previous?.configRef !== d.configRef || previous.contentHash !== artifact.contentHash)) this.restoreLockEntry(d, pair, remote?.record);
      if (artifact.content !== "output") note = this.restoreOutput(pair, artifact.contentHash);
      if (this.plan.byId.get(d.id).action === "run") note = this.cutoffNote(pair);
      if (d.revision !== void 0) this.contents.set(d.id, Buffer.from(d.revision, "utf8"));
    }
    if (d.stale) note = `${note ? `${note}; ` : ""}a person's edit kept, though its sources changed since (carry_edits: true carries it forward)`;
    this.decided.set(d.id, d);
    const avoided = artifact.edited || !spent || spent.input + spent.output === 0 ? null : spent;
    this.finish({
      id: d.id,
      configRef: d.configRef,
      status: "reused",
      attempts: [],
      contentHash: artifact.contentHash,
      reasons: [],
      durationMs: 0,
      note,
      avoided
    });
  }
  /** A pair another shard executes: its verified artifact is used as if reused here. */
  async awaitShard(d, shard) {
    const got = await shard.await(d.id, d.configRef, this.signal);
    if ("missing" in got) {
      this.finish({ ...this.blocked(d.id, got.missing), status: this.signal.aborted ? "interrupted" : "blocked" });
      return;
    }
    this.contents.set(d.id, got.content);
    this.decided.set(d.id, { ...d, action: "skip", artifact: { source: "store", contentHash: got.contentHash, edited: false, content: "store" } });
    this.finish({ id: d.id, configRef: d.configRef, status: "reused", attempts: [], contentHash: got.contentHash, reasons: [], durationMs: 0, note: got.note });
  }
  /** Why a pair the plan had to run was reused: the dependencies that were to run left its reference as it was. */
  cutoffNote(pair) {
    const planned = pair.requires.filter((dep) => this.plan.byId.get(dep)?.action === "run");
    const rerun = planned.filter((dep) => this.outcomes.get(dep)?.status === "executed");
    const reused = planned.filter((dep) => this.outcomes.get(dep)?.status === "reused");
    const parts = [
      ...rerun.length > 0 ? [`${rerun.join(", ")} re-ran with identical content`] : [],
      ...reused.length > 0 ? [`${reused.join(", ")} reused`] : []
    ];
    return `early cutoff: ${parts.join("; ")}`;
  }
  /** Writes the accepted content to an output file that is missing, or that holds content pairflow generated for an older reference. */
  restoreOutput(pair, hash) {
    if (pair.output === void 0) return null;
    const unwritable = this.deps.outputs.problem(pair);
    if (unwritable !== null) return unwritable;
    const content = this.deps.store.content(hash);
    if (content === void 0) return `output ${pair.output} is not as accepted and its content is not in the local store`;
    this.deps.outputs.write(pair, content);
    this.contents.set(pair.id, content);
    return `restored ${pair.output} from the store`;
  }
  restoreLockEntry(d, pair, remote) {
    const rec = remote ?? this.deps.store.record(d.id, d.configRef);
    const accepted = rec?.status === "accepted" ? rec : void 0;
    this.setLockEntry(d.id, {
      configRef: d.configRef,
      contentHash: d.artifact.contentHash,
      source: accepted?.source ?? "generated",
      model: accepted?.model !== void 0 ? accepted.model : pair.model,
      components: plannedComponents(d),
      attempts: accepted?.attempts ?? 0,
      tokens: accepted?.tokens ?? { input: 0, output: 0 },
      durationMs: accepted?.durationMs ?? 0,
      acceptedAt: accepted?.at ?? (/* @__PURE__ */ new Date()).toISOString(),
      ...observedFiles(d.own)
    });
  }
  // -------------------------------------------------------------------------------------------
  // Execution
  async run(d, pair) {
    const started = Date.now();
    this.emit({ type: "pair_start", id: d.id, configRef: d.configRef, reasons: d.reasons });
    const earlier = this.options.resume?.attempts.get(d.id);
    const attempts = earlier?.configRef === d.configRef ? [...earlier.attempts] : [];
    const interrupted = (note = "cancelled: the run was interrupted") => this.finish({
      id: d.id,
      configRef: d.configRef,
      status: "interrupted",
      attempts,
      contentHash: null,
      reasons: d.reasons,
      durationMs: Date.now() - started,
      note
    });
    const fail = (message) => {
      this.deps.store.putRecord({
        pair: d.id,
        configRef: d.configRef,
        status: "rejected",
        feedback: message,
        components: plannedComponents(d),
        at: (/* @__PURE__ */ new Date()).toISOString()
      });
      this.finish({
        id: d.id,
        configRef: d.configRef,
        status: "failed",
        attempts,
        contentHash: null,
        reasons: d.reasons,
        durationMs: Date.now() - started,
        note: message
      });
    };
    let generate, guard;
    try {
      generate = this.deps.generator(pair.generator);
      guard = pair.guard === null ? null : this.deps.guard(pair.guard);
    } catch (err) {
      return fail(err.message);
    }
    const dependencies = [];
    for (const dep of pair.requires) {
      const content = this.contentOf(dep);
      if (content === void 0) return fail(`the accepted content of ${dep} is not available (no output file, not in the store); run with --from ${dep}`);
      const text = utf8Text(content);
      if (text === void 0) return fail(`the accepted content of ${dep} is not UTF-8 text, so it cannot become part of ${d.id}'s prompt`);
      dependencies.push({ id: dep, content: text });
    }
    const { workflow } = this.plan;
    const total = pair.rmax + 1;
    const history = attempts.filter((a) => !a.accepted).map((a) => ({ feedback: a.feedback }));
    const maxOutputBytes = pair.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
    const reuseRequests = !this.plan.selection.force && pair.fresh !== true;
    const judge = guardKey(d.id, d.own);
    const reads = /* @__PURE__ */ new Set();
    let generatorTraced = false;
    const tracer = this.options.trace;
    const guardTrace = tracer && { argv: () => tracer.argv(), read: (files) => files.forEach((f) => reads.add(f)) };
    const generatorTrace = guardTrace && {
      argv: guardTrace.argv,
      read: (files) => {
        generatorTraced = true;
        guardTrace.read(files);
      }
    };
    let answered;
    const accept = async (content, note) => {
      if (guardTrace) {
        const before = d;
        d = this.observed(d, pair, [...reads], generatorTraced);
        if (d !== before && answered !== void 0) this.recordObserved(answered, d, pair, dependencies, content);
      }
      const written = content;
      if (pair.assembly !== void 0 && pair.requires.some((dep) => this.decided.get(dep)?.revision !== void 0)) {
        const generated = pair.requires.map((dep) => ({
          id: dep,
          content: this.deps.store.content(this.decided.get(dep).artifact.contentHash)?.toString("utf8") ?? ""
        }));
        const made = await generate({
          pairId: d.id,
          attempt: 1,
          model: null,
          prompt: "",
          dependencies: generated,
          config: plain(pair.generatorConfig),
          cwd: workflow.dir,
          env: {},
          signal: this.signal
        });
        content = typeof made.content === "string" ? Buffer.from(made.content, "utf8") : made.content;
      }
      const contentHash = this.deps.store.putContent(content);
      this.contents.set(d.id, written);
      const durationMs = Date.now() - started;
      const unwritable = this.deps.outputs.problem(pair);
      if (unwritable !== null) return fail(unwritable);
      this.recordAccepted(d, pair, { contentHash, source: "generated", attempts, durationMs }, content);
      this.deps.outputs.write(pair, written);
      this.decided.set(d.id, { ...d, action: "skip", artifact: { source: "store", contentHash, edited: false, content: "store" } });
      this.finish({ id: d.id, configRef: d.configRef, status: "executed", attempts, contentHash, reasons: d.reasons, durationMs, note });
    };
    const requestOf = (given, attempt) => requestKey({
      pair,
      own: d.own,
      prompt: renderPromptParts({
        prompt: pair.prompt,
        specification: workflow.specification,
        constraints: workflow.constraints,
        dependencies,
        history: [...given],
        ...d.revision !== void 0 ? { revision: d.revision } : {}
      }).text,
      dependencies,
      attempt
    });
    for (let attempt = attempts.length + 1; attempt <= total; attempt++) {
      if (this.signal.aborted) return interrupted();
      this.emit({ type: "attempt_start", id: d.id, attempt });
      const t0 = Date.now();
      const rendered = renderPromptParts({
        prompt: pair.prompt,
        specification: workflow.specification,
        constraints: workflow.constraints,
        dependencies,
        history,
        ...d.revision !== void 0 ? { revision: d.revision } : {}
      });
      const prompt = rendered.text;
      const shared = this.sharedPrefix(d.id);
      const request = requestKey({ pair, own: d.own, prompt, dependencies, attempt });
      let content;
      let tokens = null;
      let stderr;
      let replayed;
      let verdict;
      try {
        const answer = reuseRequests ? await this.answerFromIndex(request, judge, guard, pair, attempt, maxOutputBytes, guardTrace) : void 0;
        if (answer) {
          const reused = { kind: answer.kind, pair: answer.entry.pair, at: answer.entry.at, tokens: answer.entry.tokens };
          answered = { prompt, attempt, tokens: answer.entry.tokens, entry: answer.entry };
          attempts.push({ attempt, accepted: true, feedback: "", tokens: null, durationMs: Date.now() - t0, reused });
          this.emit({ type: "attempt_end", id: d.id, attempt, of: total, accepted: true, feedback: "", tokens: null, durationMs: Date.now() - t0, reused });
          return accept(answer.content, reuseNote(reused, attempts));
        }
        const rejected = reuseRequests ? this.replayable(attempt, total, history, requestOf, judge) : void 0;
        if (rejected) {
          const feedback = rejected.feedback[judge];
          const reused = { kind: "request", pair: rejected.pair, at: rejected.at, tokens: rejected.tokens };
          attempts.push({ attempt, accepted: false, feedback, tokens: null, durationMs: Date.now() - t0, reused });
          this.emit({ type: "attempt_end", id: d.id, attempt, of: total, accepted: false, feedback, tokens: null, durationMs: Date.now() - t0, reused });
          history.push({ feedback });
          continue;
        }
        const result = await generate({
          pairId: d.id,
          attempt,
          model: pair.model,
          prompt,
          ...shared === void 0 ? {} : { cacheablePrefix: rendered.prefixEnds[shared] },
          dependencies,
          config: plain(pair.generatorConfig),
          cwd: workflow.dir,
          env: this.options.env.generator,
          signal: this.signal,
          maxOutputBytes,
          sandbox: this.options.sandbox,
          limits: this.options.limits,
          trace: generatorTrace
        });
        content = typeof result.content === "string" ? Buffer.from(result.content, "utf8") : result.content;
        tokens = result.tokens ?? null;
        if (result.replayed) {
          replayed = { kind: "request", pair: d.id, at: result.replayed.at, tokens };
          tokens = null;
        }
        stderr = result.stderr === void 0 ? void 0 : this.redact(result.stderr);
        if (content.length > maxOutputBytes)
          throw new Error(`${d.id}: the artifact is ${content.length} bytes, over the output limit of ${maxOutputBytes} bytes (max_output_bytes)`);
        try {
          verdict = await this.check(guard, pair, content, attempt, guardTrace);
        } catch (err) {
          if (!this.signal.aborted) this.recordAnswer(request, d, pair, content, tokens, {});
          throw err;
        }
        verdict = { accepted: verdict.accepted, feedback: this.redact(verdict.feedback) };
      } catch (err) {
        if (this.signal.aborted) return interrupted();
        if (err instanceof BatchPendingError) {
          this.waiting++;
          return interrupted(this.redact(err.message));
        }
        if (err instanceof RateLimitWaitError) return interrupted(this.redact(err.message));
        const message = this.redact(err.message);
        attempts.push({ attempt, accepted: false, feedback: message, tokens, durationMs: Date.now() - t0 });
        return fail(message);
      }
      if (verdict.accepted) await this.writeTurn(d.id);
      this.recordAnswer(
        request,
        d,
        pair,
        content,
        tokens,
        { [judge]: verdict.accepted ? "accepted" : "rejected" },
        verdict.accepted ? void 0 : { [judge]: verdict.feedback }
      );
      answered = { prompt, attempt, tokens };
      const record = {
        attempt,
        accepted: verdict.accepted,
        feedback: verdict.feedback,
        tokens,
        durationMs: Date.now() - t0,
        ...replayed ? { reused: replayed } : {}
      };
      attempts.push(record);
      this.emit({
        type: "attempt_end",
        id: d.id,
        attempt,
        of: total,
        accepted: verdict.accepted,
        feedback: verdict.feedback,
        tokens,
        durationMs: record.durationMs,
        ...stderr ? { stderr } : {},
        ...replayed ? { reused: replayed } : {}
      });
      if (verdict.accepted) return accept(content, replayed ? reuseNote(replayed, attempts) : null);
      history.push({ feedback: verdict.feedback });
    }
    fail(`rejected after ${total} attempt${total === 1 ? "" : "s"}: ${attempts[attempts.length - 1]?.feedback ?? ""}`);
  }
  /**
   * An artifact generated for this request that the pair's guard accepts, with no call: each is
   * judged now (its verdict recorded), and one it rejected before is never judged again. Undefined when none passes: the generator is called.
   */
  async answerFromIndex(request, judge, guard, pair, attempt, maxOutputBytes, trace) {
    const local = this.deps.store.requests(request);
    const remote = (this.deps.remote?.requests?.(request) ?? []).filter((e) => !local.some((l) => l.contentHash === e.contentHash));
    for (const entry of [...local, ...remote]) {
      const before = Object.hasOwn(entry.verdicts, judge) ? entry.verdicts[judge] : void 0;
      if (before === "rejected") continue;
      let content = this.deps.store.content(entry.contentHash);
      if (content === void 0 && remote.includes(entry)) {
        content = await this.deps.remote?.requestContent?.(entry.contentHash);
        if (content !== void 0) this.deps.store.putContent(content);
      }
      if (content === void 0 || content.length > maxOutputBytes) continue;
      const verdict = await this.check(guard, pair, content, attempt, trace);
      const judged = { ...entry, verdicts: { ...entry.verdicts, [judge]: verdict.accepted ? "accepted" : "rejected" } };
      this.recordRequest(request, verdict.accepted ? judged : { ...judged, feedback: { ...entry.feedback, [judge]: this.redact(verdict.feedback) } }, content);
      if (verdict.accepted) return { content, kind: before === "accepted" ? "request" : "rejudged", entry };
    }
    return void 0;
  }
  async check(guard, pair, content, attempt, trace) {
    if (guard === null) return { accepted: true, feedback: "" };
    if (this.deps.batches?.batched(pair) || this.options.modelPairs?.is(pair)) return this.judging(() => this.judge(guard, pair, content, attempt, trace));
    return this.judge(guard, pair, content, attempt, trace);
  }
  async judge(guard, pair, content, attempt, trace) {
    const scratch = this.deps.scratch;
    let artifactPath;
    const commands = commandNetwork(pair).some((c) => c.command === "guard");
    const place = commands && this.deps.outputs.problem(pair) === null ? this.deps.outputs.path(pair) : void 0;
    const staged = place !== void 0 && this.options.sandbox?.layered !== true ? this.deps.outputs.stage?.(pair, content) : void 0;
    const name = place !== void 0 ? path.basename(place) : "artifact.txt";
    try {
      return await guard({
        pairId: pair.id,
        // Guards that read text see it decoded; a command guard reads the exact bytes from the file,
        // written only for a guard that reads it: most never do.
        content: content.toString("utf8"),
        get artifactPath() {
          return artifactPath ??= scratch.file(`${pairKey(pair.id)}.${attempt}/${name}`, content);
        },
        ...place !== void 0 ? { place, staged: staged !== void 0 } : {},
        config: plain(pair.guardConfig),
        guards: pair.guards,
        cwd: this.plan.workflow.dir,
        env: this.options.env.guard,
        signal: this.signal,
        sandbox: this.options.sandbox,
        limits: this.options.limits,
        trace
      });
    } finally {
      staged?.();
    }
  }
  /** Records what the generator returned for a request, with the verdicts given to it so far (and a rejecting guard's feedback). */
  recordAnswer(request, d, pair, content, tokens, verdicts, feedback) {
    const contentHash = this.deps.store.putContent(content);
    this.recordRequest(
      request,
      {
        contentHash,
        pair: d.id,
        configRef: d.configRef,
        at: (/* @__PURE__ */ new Date()).toISOString(),
        model: pair.model,
        tokens,
        verdicts,
        ...feedback ? { feedback } : {}
      },
      content
    );
  }
  /**
   * An answer this guard rejected before, for a request whose retries were answered before too,
   * up to one it did not reject: that rejection, to replay with its feedback rather than ask again.
   * Undefined when the chain breaks (a retry never asked, feedback not recorded): the attempt is
   * made, as a rejected answer is never judged again.
   */
  replayable(from, total, history, requestOf, judge) {
    const entries = (key) => [...this.deps.store.requests(key), ...this.deps.remote?.requests?.(key) ?? []];
    const verdict = (e) => Object.hasOwn(e.verdicts, judge) ? e.verdicts[judge] : void 0;
    const given = [...history];
    let first;
    for (let attempt = from; attempt <= total; attempt++) {
      const found = entries(requestOf(given, attempt));
      if (attempt > from && found.some((e) => verdict(e) !== "rejected")) return first;
      const rejected = found.find((e) => verdict(e) === "rejected" && e.feedback !== void 0 && Object.hasOwn(e.feedback, judge));
      if (rejected === void 0) return void 0;
      first ??= rejected;
      given.push({ feedback: rejected.feedback[judge] });
    }
    return void 0;
  }
  /** Records accepted content under its request as made with the files a traced run saw read (`observed`). */
  recordObserved(answered, d, pair, dependencies, content) {
    const key = requestKey({ pair, own: d.own, prompt: answered.prompt, dependencies, attempt: answered.attempt });
    const verdicts = { [guardKey(d.id, d.own)]: "accepted" };
    if (answered.entry) this.recordRequest(key, { ...answered.entry, verdicts }, content);
    else this.recordAnswer(key, d, pair, content, answered.tokens, verdicts);
  }
  /** Records a request index entry here, and for the remote store's next save. */
  recordRequest(key, entry, content) {
    this.deps.store.putRequest(key, entry);
    this.deps.remote?.saveRequest?.(key, entry, content);
  }
  /**
   * A traced pair's decision with what its commands were seen to read: files its reference did not
   * name are told as a warning and become part of it (`observed`), and its reference is made again
   * with them, so that the next plan, which hashes the lock entry's observed files, finds the same
   * one. Files observed before stay when the generator did not run (its artifact was a request's
   * answer): what it read then still counts.
   */
  observed(d, pair, reads, generatorTraced) {
    if (!this.deps.observe) return d;
    const before = d.own.files?.observed ?? {};
    const seen = this.deps.observe(pair, d.own, reads);
    const unnamed = Object.keys(seen).filter((file) => !Object.hasOwn(before, file));
    if (unnamed.length > 0) {
      const shown = unnamed.slice(0, 10).join(", ") + (unnamed.length > 10 ? ` and ${unnamed.length - 10} more` : "");
      this.emit({
        type: "warning",
        message: `${d.id}: its commands read ${shown}, which its reference did not name; recorded as observed in the lock file, so a change ${unnamed.length === 1 ? "to it re-runs" : "to any of them re-runs"} the pair (list ${unnamed.length === 1 ? "it" : "them"} under \`files\` to name ${unnamed.length === 1 ? "it" : "them"})`
      });
    }
    const observed = generatorTraced ? seen : { ...before, ...seen };
    const same = Object.keys(observed).length === Object.keys(before).length && Object.entries(observed).every(([f, h]) => Object.hasOwn(before, f) && before[f] === h);
    if (same) return d;
    const own = withObserved(d.own, observed);
    const upstream = { refs: dict(), artifactHashes: dict() };
    for (const dep of pair.requires) {
      const decided = this.decided.get(dep);
      upstream.refs[dep] = decided.configRef;
      upstream.artifactHashes[dep] = decided.artifact.contentHash;
    }
    return { ...d, own, configRef: configRef(own, upstream), components: componentDigests(own, upstream) };
  }
  /** How many of the pair's dependencies the part of its prompt other pairs of this run share runs through; undefined: none shared. */
  sharedPrefix(id) {
    if (!this.sharing) {
      const { workflow } = this.plan;
      const running = this.plan.pairs.filter((p) => p.action === "run").map((p) => workflow.pairs.get(p.id));
      this.sharing = sharedPrefixes(running, workflow, byProviderAndModel);
    }
    return this.sharing.get(id);
  }
  redact(text) {
    return this.options.redact ? this.options.redact(text) : text;
  }
  /** A dependency's accepted content, the bytes its hash names: the output file's when it holds them, else the store's. */
  contentOf(id) {
    const known = this.contents.get(id);
    if (known) return known;
    const hash = this.decided.get(id).artifact.contentHash;
    const file = this.deps.outputs.read(this.plan.workflow.pairs.get(id));
    const content = (file && acceptedBytes(file, hash)) ?? this.deps.store.content(hash);
    if (content) this.contents.set(id, content);
    return content;
  }
  // -------------------------------------------------------------------------------------------
  // Records
  recordAccepted(d, pair, r, content) {
    const tokens = { input: 0, output: 0 };
    for (const a of r.attempts) if (a.tokens) addTokens(tokens, a.tokens);
    const at = (/* @__PURE__ */ new Date()).toISOString();
    const components = plannedComponents(d);
    const record = {
      pair: d.id,
      configRef: d.configRef,
      status: "accepted",
      contentHash: r.contentHash,
      components,
      at,
      source: r.source,
      model: pair.model,
      attempts: r.attempts.length,
      tokens,
      durationMs: r.durationMs
    };
    if (r.source === "generated") this.deps.store.putRecord(record);
    this.setLockEntry(d.id, {
      configRef: d.configRef,
      contentHash: r.contentHash,
      source: r.source,
      model: pair.model,
      components,
      attempts: r.attempts.length,
      tokens,
      durationMs: r.durationMs,
      acceptedAt: at,
      ...observedFiles(d.own)
    });
    const remote = this.deps.remote;
    if (remote && r.source === "generated") {
      const save = remote.save({ record, content }).catch((err) => {
        this.emit({ type: "warning", message: `${d.id}: could not save to ${remote.name}: ${err.message}` });
      });
      this.saves.push(save);
    }
  }
  /**
   * Frees the slot of a pair nothing depends on and waits until whatever that lets start has started. The pair's files
   * are then written in the same order as ever (store, then lock file journal, then output), so a
   * kill meanwhile loses nothing the journal says is done; the next pairs' commands just do not
   * wait for them.
   */
  async writeTurn(id) {
    const release2 = this.releases.get(id);
    if (release2 === void 0 || this.plan.graph.dependents.get(id).length > 0) return;
    this.releases.delete(id);
    release2();
    await new Promise((resolve) => setImmediate(resolve));
  }
  setLockEntry(id, entry) {
    this.lock.pairs[id] = entry;
    this.deps.lockFile.record(id, entry);
  }
  blocked(id, note) {
    const planned = this.plan.byId.get(id);
    return { id, configRef: planned.configRef, status: "blocked", attempts: [], contentHash: null, reasons: planned.reasons, durationMs: 0, note };
  }
  finish(outcome) {
    this.outcomes.set(outcome.id, outcome);
    this.emit({ type: "pair_end", outcome });
    this.ended(outcome.id);
  }
  emit(event) {
    this.options.onEvent?.(event);
  }
};
function observedFiles(own) {
  const files = Object.keys(own.files?.observed ?? {});
  return files.length > 0 ? { observed: files } : {};
}
function reuseNote(reused, attempts) {
  const how = reused.kind === "request" ? "request reused" : "request reused; guard re-judged";
  const from = `generated for ${reused.pair} at ${reused.at}`;
  const called = attempts.filter((a) => a.reused === void 0).length;
  if (called === 0) return `${how}: no model call (${from})`;
  return `${how} for attempt ${attempts.length} (${from}); ${called === 1 ? "1 attempt" : `${called} attempts`} before it called the model`;
}
function settleable() {
  let resolve;
  const promise = new Promise((r) => resolve = r);
  const s = {
    promise,
    settled: false,
    resolve: () => {
      s.settled = true;
      resolve();
    }
  };
  return s;
}
function insertSorted(sorted, n) {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = lo + hi >> 1;
    if (sorted[mid] < n) lo = mid + 1;
    else hi = mid;
  }
  sorted.splice(lo, 0, n);
}
function addTokens(into, more) {
  into.input += more.input;
  into.output += more.output;
}

// src/records/mutex.ts
import { spawnSync } from "node:child_process";
import { createHash, randomBytes as randomBytes2 } from "node:crypto";
import { linkSync, readFileSync, realpathSync, rmSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import path2 from "node:path";
var LockBusyError = class extends Error {
  constructor(holder) {
    super(`another run (${holder.runId}, pid ${holder.pid} on ${holder.host}) is using ${holder.workflow}`);
    this.holder = holder;
  }
  holder;
  name = "LockBusyError";
};
function lockPath(workflowPath) {
  let real = workflowPath;
  try {
    real = realpathSync.native(workflowPath);
  } catch {
  }
  const lock = realLockPath(lockPathFor(real));
  return path2.join(path2.dirname(lock), `.${path2.basename(lock)}.mutex`);
}
async function acquireRunLock(workflowPath, options) {
  const file = lockPath(workflowPath);
  let told = false;
  let warned = false;
  let judged;
  for (; ; ) {
    const me = holderRecord(options.runId, workflowPath);
    if (createExclusive(file, me)) return () => release(file, me);
    const seen = readText(file);
    if (seen === void 0) {
      await sleep(1);
      continue;
    }
    const holder = parseHolder(seen);
    if (holder === void 0 || isStale(holder)) {
      if (holder === void 0 && youngerThan(file, 5e3)) {
        await sleep(50);
        continue;
      }
      removeDeadHolder(file, seen, options.runId, workflowPath);
      await sleep(1);
      continue;
    }
    if (judged?.seen !== seen) judged = { seen, ignored: ignoredBecause(file, holder) };
    const ignored = judged.ignored;
    if (ignored !== void 0) {
      if (!warned) options.onWarn?.(ignored);
      warned = true;
      removeDeadHolder(file, seen, options.runId, workflowPath);
      await sleep(1);
      continue;
    }
    if (!options.wait) throw new LockBusyError(holder);
    if (!told) {
      options.onWait?.(holder);
      told = true;
    }
    if (options.signal?.aborted) throw new LockBusyError(holder);
    await sleep(options.pollMs ?? 200);
  }
}
function holderRecord(runId, workflow) {
  const holder = { pid: process.pid, host: hostname(), runId, workflow, since: (/* @__PURE__ */ new Date()).toISOString(), token: randomBytes2(8).toString("hex") };
  return JSON.stringify(holder);
}
function removeDeadHolder(file, seen, runId, workflow, depth = 0) {
  const guard = `${file}.takeover-${createHash("sha256").update(seen).digest("hex").slice(0, 16)}`;
  if (createExclusive(guard, holderRecord(runId, workflow))) {
    try {
      if (readText(file) === seen) unlinkSync(file);
    } finally {
      rmSync(guard, { force: true });
    }
    return;
  }
  const other = readText(guard);
  if (other === void 0 || depth >= 8) return;
  const holder = parseHolder(other);
  if (holder !== void 0 && !isStale(holder) && ignoredBecause(guard, holder) === void 0) return;
  if (holder === void 0 && youngerThan(guard, 5e3)) return;
  removeDeadHolder(guard, other, runId, workflow, depth + 1);
}
function createExclusive(file, text) {
  const tmp = path2.join(path2.dirname(file), `.${path2.basename(file)}.${process.pid}.${randomBytes2(4).toString("hex")}.tmp`);
  writeFileSync(tmp, text);
  try {
    linkSync(tmp, file);
    return true;
  } catch (err) {
    const code = err.code;
    if (code === "EEXIST") return false;
    if (code !== "EPERM" && code !== "ENOTSUP" && code !== "ENOSYS" && code !== "EXDEV") throw err;
    try {
      writeFileSync(file, text, { flag: "wx" });
      return true;
    } catch (err2) {
      if (err2.code === "EEXIST") return false;
      throw err2;
    }
  } finally {
    rmSync(tmp, { force: true });
  }
}
function youngerThan(file, ms) {
  try {
    return Date.now() - statSync(file).mtimeMs < ms;
  } catch {
    return false;
  }
}
function readText(file) {
  try {
    return readFileSync(file, "utf8");
  } catch (err) {
    if (err.code === "ENOENT") return void 0;
    throw new UsageError(`${file} cannot be read as pairflow's run mutex (${err.code}); remove it if no run is going`);
  }
}
function parseHolder(text) {
  try {
    const value = JSON.parse(text);
    if (value === null || typeof value !== "object" || typeof value.pid !== "number" || typeof value.host !== "string") return void 0;
    return { runId: "?", workflow: "?", since: "?", ...value };
  } catch {
    return void 0;
  }
}
function readHolder(file) {
  const text = readText(file);
  return text === void 0 ? void 0 : parseHolder(text);
}
function isStale(holder) {
  if (holder.host !== hostname()) return false;
  try {
    process.kill(holder.pid, 0);
    return false;
  } catch (err) {
    return err.code === "ESRCH";
  }
}
var SINCE_SLACK_MS = 6e4;
function ignoredBecause(file, holder) {
  const fix = `git rm --cached ${file}, and add ${path2.basename(file)} to .gitignore`;
  const who = `run ${holder.runId}, pid ${holder.pid}`;
  if (holder.host !== hostname()) {
    return `${file} names a holder on another host (${who} on ${holder.host}): a run mutex is held only on the host that runs pairflow, so it is ignored. It must not be committed; if git tracks it, ${fix}`;
  }
  if (writtenBySince(file, holder) || !trackedByGit(file)) return void 0;
  return `${file} is tracked by git, and its holder (${who}, since ${holder.since}) came with a checkout, not from a run here, so it is ignored. It must not be committed: ${fix}`;
}
function writtenBySince(file, holder) {
  const since = Date.parse(holder.since);
  let mtime;
  try {
    mtime = statSync(file).mtimeMs;
  } catch {
    return true;
  }
  return Number.isFinite(since) && Math.abs(mtime - since) <= SINCE_SLACK_MS;
}
function trackedByGit(file) {
  const r = spawnSync("git", ["ls-files", "--error-unmatch", "--", path2.basename(file)], {
    cwd: path2.dirname(file),
    stdio: "ignore",
    env: { ...process.env, GIT_TERMINAL_PROMPT: "0" }
  });
  return r.status === 0;
}
function release(file, me) {
  if (readText(file) === me) rmSync(file, { force: true });
}
function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
function currentHolder(workflowPath) {
  const file = lockPath(workflowPath);
  const holder = readHolder(file);
  return holder && !isStale(holder) && ignoredBecause(file, holder) === void 0 ? holder : void 0;
}
async function acquireRunLocks(workflowPaths, options) {
  const releases = [];
  const releaseAll = () => {
    for (const release2 of releases.reverse()) release2();
  };
  try {
    const byMutex = /* @__PURE__ */ new Map();
    for (const workflow of workflowPaths) if (!byMutex.has(lockPath(workflow))) byMutex.set(lockPath(workflow), workflow);
    for (const key of [...byMutex.keys()].sort()) releases.push(await acquireRunLock(byMutex.get(key), options));
  } catch (err) {
    releaseAll();
    throw err;
  }
  return releaseAll;
}

export {
  GeneratorError,
  BatchPendingError,
  RateLimitWaitError,
  GuardConfigError,
  GuardError,
  limiter,
  DEFAULT_CONCURRENCY,
  newRunId,
  executePlan,
  LockBusyError,
  lockPath,
  acquireRunLock,
  currentHolder,
  acquireRunLocks
};
