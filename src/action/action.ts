/**
 * The GitHub Action: a thin shell over the same core as the CLI. It reads the inputs, plans or
 * runs with the Actions cache as remote store, and reports in the job log, annotations, the job
 * summary and the step outputs.
 */
import * as core from "@actions/core";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ConfigError, InputError, StorageError, UsageError } from "../model/errors.js";
import type { Workflow } from "../model/workflow.js";
import { checkFails, planCheck, planJson } from "../report/plan.js";
import { runSummary } from "../report/run.js";
import { translationChanges } from "../report/translations.js";
import { blockedBy, runNodes } from "../report/causes.js";
import { collapsed, configErrorsMarkdown, planSummaryMarkdown, runSummaryMarkdown, STEP_SUMMARY_LIMIT } from "../report/summary.js";
import { styleFor } from "../report/color.js";
import type { RunReport, Selection } from "../model/run.js";
import { planOpened, planTarget, type Planned } from "../app/plan.js";
import { matrixOf, mergeShards, pinSplit, runShard, shardsOf, type ShardRequest } from "../app/shard.js";
import type { SplitSync } from "../store/shared.js";
import type { ShardSpec } from "../model/shard.js";
import { BudgetExceededError, runTarget, type RunRequest } from "../app/run.js";
import { interruptible } from "../app/signals.js";
import { compareWithRun, comparisonMarkdown, estimateHeadline, estimateMarkdown, totalCostText } from "../report/estimate.js";
import type { PlanEstimate } from "../estimate/estimate.js";
import type { PublishResult } from "../github/comment.js";
import { commentLinks, fanoutOf, pullRequestOf } from "../github/event.js";
import { commentMarker, diffMarkdown } from "../report/diffMarkdown.js";
import { planDiff, type PreparedDiff } from "../app/diff.js";
import { UnknownRefError } from "../github/git.js";
import { writeFileAtomic } from "../workspace/files.js";
import { fenceFor } from "../prompt/render.js";
import { sha256Hex } from "../refs/hash.js";
import { keyVariables } from "../app/environment.js";
import type { ActionsCacheStore } from "../github/cache.js";
import { openState, snapshotSource } from "../app/state.js";
import { readInputs, type ActionInputs } from "./inputs.js";
import { annotateConfigIssues, annotateFailedRun, info, logPlan, repoPath, RunLog, style } from "./log.js";
import { grouped } from "../model/text.js";

/** After SIGINT or SIGTERM, how long pairs in flight may finish (the runner allows about 7.5 s before it kills). */
const GRACE_MS = 5_000;
/** A step output holds at most 1 MB. */
const OUTPUT_LIMIT = 1_000_000;

/**
 * The Actions cache client (with the Azure storage SDK it downloads with) and the pull request
 * comment's GitHub client are most of the bundle: loaded only by the jobs that use them, so a run
 * without a cache service or a plan outside a pull request does not compile them at every start
 * (scripts/build.mjs puts each in a chunk of its own).
 */
const cacheModule = () => import("../github/cache.js");
const fanoutModule = () => import("../github/fanout.js");
const commentModule = () => import("../github/comment.js");

/**
 * Whether this job has a cache service, as the cache client decides; where the runner set neither
 * of the variables the client needs one of, without loading the client.
 */
async function cacheAvailable(env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  if (!env.ACTIONS_CACHE_URL && !env.ACTIONS_RESULTS_URL) return false;
  return (await cacheModule()).ActionsCacheStore.available();
}

/**
 * Every output, as it reads when nothing was planned or run: set before anything can fail, so a
 * later `if: always()` step can read any of them (`fromJSON` of `[]`, `null`, `0`, `false`).
 */
const EMPTY_OUTPUTS: Record<string, string> = {
  plan: "null",
  "to-run": "0",
  "has-changes": "false",
  "estimated-cost": "",
  "plan-file": "",
  executed: "[]",
  reused: "[]",
  failed: "[]",
  blocked: "[]",
  "run-id": "",
  "comment-url": "",
  matrix: JSON.stringify(matrixOf([])),
  fanout: "",
  changes: "{}",
};

export async function runAction(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  for (const [name, value] of Object.entries(EMPTY_OUTPUTS)) core.setOutput(name, value);
  const workspace = path.resolve(env.GITHUB_WORKSPACE || process.cwd());
  // The runner starts actions there; the cache entry's path is relative to it.
  if (process.cwd() !== workspace) process.chdir(workspace);
  let inputs: ActionInputs | undefined;
  try {
    inputs = readInputs(workspace);
    if (inputs.githubToken) core.setSecret(inputs.githubToken);
    const remote = await openCache(inputs, workspace);
    // The workflow's state in the cache: one download, before anything is planned.
    if (remote) await remote.open((await cacheModule()).scopeFor(inputs.workflow, inputs.workingDirectory, workspace, env));
    if (inputs.mode === "plan") await plan(inputs, workspace, remote, env);
    else if (inputs.mode === "merge") await merge(inputs, workspace, remote, env);
    else if (inputs.shard) await runShardJob(inputs, inputs.shard, workspace, remote, env);
    else await run(inputs, workspace, remote, env);
  } catch (err) {
    if (err instanceof ConfigError) {
      const cwd = inputs?.workingDirectory ?? workspace;
      const issues = err.issues.map((issue) => ({ ...issue, file: repoPath(issue.file, cwd, workspace) }));
      annotateConfigIssues(issues);
      await writeSummary(configErrorsMarkdown(issues));
      process.exitCode = 1;
    } else if (err instanceof UsageError || err instanceof InputError || err instanceof StorageError) {
      core.setFailed(err.message);
    } else {
      throw err;
    }
  }
}

async function openCache(inputs: ActionInputs, workspace: string): Promise<ActionsCacheStore | undefined> {
  if (!inputs.cache) return undefined;
  if (!(await cacheAvailable())) {
    core.warning("no GitHub Actions cache service is available to this job (the runner provides none); going on with the local store only");
    return undefined;
  }
  const seconds = (name: string) => (process.env[name] ? Number(process.env[name]) * 1000 : undefined);
  const { ActionsCacheStore } = await cacheModule();
  return new ActionsCacheStore(inputs.cachePrefix, workspace, (message) => core.warning(message), {
    // A run has content in hand before it counts an artifact; a plan trusts the manifest and downloads no content.
    contentOnLookup: inputs.mode === "run",
    retryMs: seconds("PAIRFLOW_CACHE_RETRY_SECONDS"),
    checkpointMs: seconds("PAIRFLOW_CACHE_CHECKPOINT_SECONDS"),
    info,
  });
}

// ---------------------------------------------------------------------------------------------

async function plan(inputs: ActionInputs, workspace: string, remote: ActionsCacheStore | undefined, env: NodeJS.ProcessEnv): Promise<void> {
  const cwd = inputs.workingDirectory;
  // On a pull request the plan is the one main makes after merging (the head's files and lock file,
  // and the cache); the base commit only explains what changed. Either way it is `pairflow plan`'s.
  const pullRequest = pullRequestOf(env);
  const diff = pullRequest && !inputs.force ? await diffWithBase(inputs, pullRequest.baseSha, remote, env) : undefined;
  const planned =
    diff?.planned ?? (await planTarget(inputs.workflow, { cwd, env, remote, selection: selectionOf(inputs), warn: (message) => core.warning(message) }));
  const { plan: result, estimate } = planned;
  maskProviderKeys(planned.workflow);

  logPlan(result, cwd);
  setPlanOutputs(planned, cwd, env);
  if (inputs.shards !== undefined) {
    const shards = shardsOf(planned, inputs.shards);
    // The split is pinned for the fan-out this plan names: re-run shard jobs and merge jobs take it.
    const fanout = fanoutOf(env);
    if (fanout !== undefined && shards.length > 0) {
      await pinSplit(planned, shards, inputs.shards, { fanout, split: await splitSync(inputs, workspace, fanout) });
      core.setOutput("fanout", fanout);
    }
    core.setOutput("matrix", JSON.stringify(matrixOf(shards, shards.length > 0 ? fanout : undefined)));
    info(`Shards: ${shards.length === 0 ? "none (nothing to run)" : shards.map((s) => `${s.index}/${s.count} runs ${s.pairs.length}`).join(", ")}`);
  }

  const running = result.pairs.filter((p) => p.action === "run").length;
  const estimatePart = {
    title: `Estimate: ${estimateHeadline(estimate, running)}`,
    body: bounded(estimateMarkdown(estimate, running), "The table is too long for this page."),
  };
  if (!diff || !pullRequest) {
    await writeSummary(planSummaryMarkdown(result, { extra: cacheLine(inputs, remote), cost: totalCostText(estimate), collapsed: [estimatePart] }));
    return;
  }
  const { planSummary, publishPlanComment, stampLine } = await commentModule();
  const marker = commentMarker(diff.workflowFile);
  // The same links `pairflow diff --format markdown` makes in this job: its text is the comment's.
  const { commit, summaryUrl } = commentLinks(env, pullRequest.headSha);
  const stamp = stampLine({ sha: pullRequest.headSha, runId: Number(env.GITHUB_RUN_ID) || 0, attempt: Number(env.GITHUB_RUN_ATTEMPT) || 1 });
  const cost = totalCostText(estimate);

  let published: PublishResult | undefined;
  if (inputs.comment) {
    try {
      published = await publishPlanComment({
        token: inputs.githubToken,
        repo: pullRequest.repo,
        issueNumber: pullRequest.number,
        markdown: diffMarkdown(diff, { marker, hidden: [stamp], commit, cost, summaryUrl }),
        marker,
        apiUrl: env.GITHUB_API_URL,
      });
    } catch (err) {
      // Posting the comment is a courtesy: the plan itself succeeded, so the job does not fail for it.
      published = {
        posted: false as const,
        status: 0,
        notice: `The plan could not be posted as a pull request comment (${(err as Error).message}), so it is in the job summary instead.`,
      };
    }
    if (published.posted) {
      core.setOutput("comment-url", published.url);
      if (published.ignored.length > 0) {
        core.warning(
          `comments carrying this workflow's plan marker by ${published.ignored.map((login) => `@${login}`).join(", ")} are not pairflow's and were ignored: ` +
            `its plan comment is the one by ${published.author}, the account of input github-token`,
        );
      }
      if (published.action === "superseded") info(`plan comment left as it is: it shows the plan of a newer push (${published.url})`);
      else info(`plan comment ${published.action}: ${published.url}`);
    } else {
      core.notice(published.notice);
    }
  } else {
    info("plan comment: off (input comment: false); the plan is in the job summary");
  }
  const estimateSection = collapsed(estimatePart.title, estimatePart.body);
  // This page is the job summary: what it leaves out is read with pairflow, not here.
  const pointer = `\`pairflow diff --base ${pullRequest.baseSha.slice(0, 12)}\` on the head shows every cause and every diff`;
  const full = diffMarkdown(diff, { commit, cost, pointer, limit: STEP_SUMMARY_LIMIT - Buffer.byteLength(estimateSection) - 1024 });
  await writeSummary((published ? planSummary(published, full) : full) + "\n" + estimateSection + "\n");
}

/** The pull request's diff with its base; a base this checkout cannot fetch says what to change in the workflow. */
async function diffWithBase(inputs: ActionInputs, baseSha: string, remote: ActionsCacheStore | undefined, env: NodeJS.ProcessEnv): Promise<PreparedDiff> {
  try {
    return await planDiff(inputs.workflow, {
      cwd: inputs.workingDirectory,
      env,
      base: baseSha,
      // With the action's token: a checkout that kept no credentials (persist-credentials: false) still fetches.
      fetch: inputs.githubToken ? { auth: { server: env.GITHUB_SERVER_URL || "https://github.com", token: inputs.githubToken } } : true,
      remote,
      baseState: remote && (() => remote.baseState()),
    });
  } catch (err) {
    if (!(err instanceof UnknownRefError)) throw err;
    const advice =
      "pairflow compares the pull request with its base: in the workflow, check the repository out with " +
      "`actions/checkout` and `fetch-depth: 0` (or fetch the base in an earlier step), and give the job `permissions: contents: read` so it may fetch.";
    const what = `the pull request's base commit ${baseSha} is not in this checkout, and fetching it from origin failed`;
    const said = err.fetchError ? `\n\ngit said:\n\n${fenced(err.fetchError)}` : "";
    await writeSummary(`## pairflow plan: the pull request's base could not be read\n\n${what}. ${advice}${said}\n`);
    const message = `${what}${err.fetchError ? ` (git: ${err.fetchError.split("\n").join(" / ")})` : ""}. ${advice}`;
    throw new UsageError(message);
  }
}

function selectionOf(inputs: ActionInputs): Selection {
  return inputs.force ? { force: true } : inputs.only ? { only: inputs.only } : {};
}

async function run(inputs: ActionInputs, workspace: string, remote: ActionsCacheStore | undefined, env: NodeJS.ProcessEnv): Promise<void> {
  const cwd = inputs.workingDirectory;
  const log = new RunLog();
  let planned: Planned | undefined;
  let outputsBefore = new Map<string, string | undefined>();
  let restoring = false;
  if (remote) {
    core.startGroup("Looking up accepted artifacts in the GitHub Actions cache");
    restoring = true;
  }
  const endRestoring = () => {
    if (restoring) core.endGroup();
    restoring = false;
  };

  // A cancelled job (SIGINT, then SIGTERM from the runner) ends like a stopped CLI run: pairs in
  // flight get a grace period, and the summary, the outputs and the log groups are still written.
  const interruption = interruptible(GRACE_MS, (message) => core.warning(message));
  let report: RunReport;
  try {
    report = await runTarget(inputs.workflow, {
      ...runRequest(inputs, env, remote, interruption, log),
      onPlanned: (p) => {
        endRestoring();
        planned = p;
        outputsBefore = valueOutputs(p);
        remote?.attach(snapshotSource(p));
        maskProviderKeys(p.workflow);
        logPlan(p.plan, cwd);
        setPlanOutputs(p, cwd, env);
        info(`Estimate: ${estimateHeadline(p.estimate, p.plan.pairs.filter((q) => q.action === "run").length)}`);
      },
    });
  } catch (err) {
    if (!(err instanceof BudgetExceededError)) throw err;
    await writeSummary(`## pairflow run refused\n\n${err.message}\n\n${estimateMarkdown(err.estimate)}`);
    core.setFailed(err.message);
    return;
  } finally {
    endRestoring();
    interruption.dispose();
    // What the run accepted goes to the cache as one snapshot, also when it failed or was cancelled.
    if (remote && planned) {
      core.startGroup("Saving the workflow's state to the GitHub Actions cache");
      await remote.finish();
      core.endGroup();
    }
  }
  log.end();
  info(runSummary(report, style, { plan: planned?.plan }).trimEnd());

  const { plan, workflow, estimate, loaded } = planned!;
  const t = report.totals;
  // The step's failure is the first error annotation, then the failures that blocked the most.
  const failure =
    report.status === "success" || report.status === "waiting"
      ? undefined
      : `the run ${report.status}: ${t.failed} failed and ${t.blocked} blocked of ${t.pairs} pairs (see the job summary)`;
  annotateFailedRun(report, { failure, blocked: blockedBy(runNodes(plan, report)) }, loaded.sources.workflow, workflow, workspace);
  setOutcomeOutputs(report);
  setChangesOutput(planned!, report, outputsBefore, workspace, env);
  const comparison =
    estimate.pairs.length > 0 ? [{ title: "Estimated against actual", body: bounded(comparisonMarkdown(compareWithRun(estimate, report)), "") }] : [];
  await writeSummary(runSummaryMarkdown(plan, report, { extra: cacheLine(inputs, remote), collapsed: comparison }));

  if (report.status === "waiting") {
    // What batch-wait: false asked for: the job ends, and a later one collects the batches.
    core.notice(
      `${report.totals.interrupted} pairs wait for provider batches; a later run of this workflow collects them (the batches are in the GitHub Actions cache's snapshot)`,
    );
  }
}

// ---------------------------------------------------------------------------------------------
// A fanned-out run: shard jobs of a matrix, then one merge job (docs/fanout.md).

/**
 * The exchange between this run's shard jobs: Actions cache entries of the fan-out the plan job
 * pinned (input fanout), across the run's attempts; without one, of this workflow run and attempt.
 */
async function fanOut(
  inputs: ActionInputs,
  workspace: string,
  env: NodeJS.ProcessEnv,
): Promise<Pick<ShardRequest, "fanout" | "sync" | "split" | "attempt" | "pullEveryMs" | "pushEveryMs" | "waitMs">> {
  const fanout = inputs.fanout ?? fanoutOf(env) ?? "local";
  const seconds = (name: string) => (env[name] ? Number(env[name]) * 1000 : undefined);
  const every = {
    pullEveryMs: seconds("PAIRFLOW_SHARD_PULL_SECONDS"),
    pushEveryMs: seconds("PAIRFLOW_SHARD_PUSH_SECONDS"),
    waitMs: seconds("PAIRFLOW_SHARD_WAIT_SECONDS"),
  };
  // A pinned fan-out spans the run's attempts: reports count only within one attempt.
  const attempt = inputs.fanout !== undefined ? (env.GITHUB_RUN_ATTEMPT ?? "1") : undefined;
  if (!inputs.cache || !(await cacheAvailable())) {
    core.warning("shards of one run meet through the GitHub Actions cache, and it is off or not available: each shard sees only its own work");
    return { fanout, attempt, ...every };
  }
  const { actionsCacheCalls, cacheSync } = await fanoutModule();
  const calls = actionsCacheCalls({ warn: (message) => core.warning(message), retryMs: seconds("PAIRFLOW_CACHE_RETRY_SECONDS") });
  const split = inputs.fanout !== undefined ? await splitSync(inputs, workspace, fanout) : undefined;
  return { fanout, attempt, sync: cacheSync(calls, inputs.cachePrefix, fanout, workspace), split, ...every };
}

/** Where a fan-out's pinned split is published: the Actions cache, when the job has it. */
async function splitSync(inputs: ActionInputs, workspace: string, fanout: string): Promise<SplitSync | undefined> {
  if (!inputs.cache || !(await cacheAvailable())) return undefined;
  const { actionsCacheCalls, cacheSplit } = await fanoutModule();
  const retryMs = process.env.PAIRFLOW_CACHE_RETRY_SECONDS ? Number(process.env.PAIRFLOW_CACHE_RETRY_SECONDS) * 1000 : undefined;
  const calls = actionsCacheCalls({ warn: (message) => core.warning(message), retryMs });
  return cacheSplit(calls, inputs.cachePrefix, fanout, workspace);
}

async function runShardJob(
  inputs: ActionInputs,
  shard: ShardSpec,
  workspace: string,
  remote: ActionsCacheStore | undefined,
  env: NodeJS.ProcessEnv,
): Promise<void> {
  const cwd = inputs.workingDirectory;
  const log = new RunLog();
  const interruption = interruptible(GRACE_MS, (message) => core.warning(message));
  let report: RunReport;
  try {
    report = await runShard(inputs.workflow, {
      ...runRequest(inputs, env, remote, interruption, log),
      shard,
      ...(await fanOut(inputs, workspace, env)),
      onPlanned: (p) => {
        maskProviderKeys(p.workflow);
        logPlan(p.plan, cwd);
        setPlanOutputs(p, cwd, env);
      },
    });
  } catch (err) {
    if (!(err instanceof BudgetExceededError)) throw err;
    await writeSummary(`## pairflow shard ${shard.index}/${shard.count} refused\n\n${err.message}\n\n${estimateMarkdown(err.estimate)}`);
    core.setFailed(err.message);
    return;
  } finally {
    interruption.dispose();
  }
  log.end();
  info(runSummary(report, style, { plan: log.plan }).trimEnd());
  setOutcomeOutputs(report);
  // As the terminal shows it, in a code block: what it names is data, never Markdown.
  await writeSummary(`## pairflow shard ${shard.index}/${shard.count}\n\n${fenced(runSummary(report, styleFor({}), { plan: log.plan }).trimEnd())}\n`);
  if (report.status !== "success")
    core.setFailed(`shard ${shard.index}/${shard.count} ${report.status}: ${report.totals.failed} failed and ${report.totals.blocked} blocked`);
}

/** Folds the shards into one lock file, one run record, one job summary and one cache snapshot. */
async function merge(inputs: ActionInputs, workspace: string, remote: ActionsCacheStore | undefined, env: NodeJS.ProcessEnv): Promise<void> {
  const cwd = inputs.workingDirectory;
  const { report, missing } = await mergeShards(inputs.workflow, { cwd, env, remote, shards: inputs.shards, ...(await fanOut(inputs, workspace, env)) });
  const opened = openState(inputs.workflow, { cwd, env, remote });
  if (remote) {
    core.startGroup("Saving the workflow's state to the GitHub Actions cache");
    remote.attach(snapshotSource(opened));
    await remote.finish();
    core.endGroup();
  }
  const planned = await planOpened(opened, {});
  info(runSummary(report, style, { plan: planned.plan }).trimEnd());
  setOutcomeOutputs(report);
  const absent = missing.map((s) => `- shard ${s.index}/${s.count} never reported: its pairs that were not accepted are blocked`);
  await writeSummary(runSummaryMarkdown(planned.plan, report, { extra: [...(absent.length ? ["", ...absent] : []), ...cacheLine(inputs, remote)] }));
  if (report.status !== "success") {
    const t = report.totals;
    core.setFailed(
      `the fanned-out run failed: ${t.failed} failed and ${t.blocked} blocked of ${t.pairs} pairs${missing.length ? `, ${missing.length} shard(s) never reported` : ""} (see the job summary)`,
    );
  }
}

/** What every run of the action (whole, a shard) asks of the run: where, how many at once, the budget, the log. */
function runRequest(
  inputs: ActionInputs,
  env: NodeJS.ProcessEnv,
  remote: ActionsCacheStore | undefined,
  interruption: { stop: AbortSignal; cancel: AbortSignal },
  log: RunLog,
): RunRequest {
  return {
    cwd: inputs.workingDirectory,
    env,
    stop: interruption.stop,
    signal: interruption.cancel,
    concurrency: inputs.concurrency,
    ...(inputs.maxWaitSeconds === undefined ? {} : { maxWaitSeconds: inputs.maxWaitSeconds }),
    ...(inputs.rateLimits === undefined ? {} : { rateLimits: inputs.rateLimits }),
    selection: selectionOf(inputs),
    remote,
    maxCost: inputs.maxCost,
    maxCostName: "max-cost",
    sandbox: inputs.sandbox,
    limits: inputs.limits,
    traceReads: inputs.traceReads,
    batch: inputs.batch,
    batchWait: inputs.batchWait,
    onEvent: log.onEvent,
  };
}

/** The outputs a run fills: the pairs by outcome, as JSON arrays of ids, and the run's id. */
function setOutcomeOutputs(report: RunReport): void {
  const ids = (status: string) => JSON.stringify(report.pairs.filter((p) => p.status === status).map((p) => p.id));
  for (const name of ["executed", "reused", "failed", "blocked"]) core.setOutput(name, ids(name));
  core.setOutput("run-id", report.runId);
}

/**
 * Output changes: for each value of a foreach over files and values (each language), the output
 * files the run wrote, relative to the workspace, and a file holding the pull request body that
 * says what changed and why (src/report/translations.ts); `{}` when the workflow has no values.
 */
function setChangesOutput(
  planned: Planned,
  report: RunReport,
  before: ReadonlyMap<string, string | undefined>,
  workspace: string,
  env: NodeJS.ProcessEnv,
): void {
  const dir = planned.workflow.dir;
  const after = valueOutputs(planned);
  const changes = translationChanges(planned.plan, report, {
    lock: planned.lock,
    written: new Set([...before].filter(([output, hash]) => after.get(output) !== hash).map(([output]) => output)),
    path: (output) => repoPath(output, dir, workspace),
    more: `\`pairflow show ${report.runId}\``,
  });
  if (changes.length === 0) return;
  const bodies = mkdtempSync(path.join(env.RUNNER_TEMP || tmpdir(), "pairflow-changes-"));
  const output: Record<string, { files: string[]; "body-file": string }> = {};
  for (const { value, files, body } of changes) {
    const file = path.join(bodies, `${encodeURIComponent(value)}.md`);
    writeFileAtomic(file, body);
    output[value] = { files, "body-file": file };
  }
  core.setOutput("changes", JSON.stringify(output));
}

/** The output files of the instances of foreach pairs over values, by output as written, with the sha256 of each that exists. */
function valueOutputs(planned: Planned): Map<string, string | undefined> {
  const hashes = new Map<string, string | undefined>();
  for (const { id } of planned.plan.pairs) {
    const pair = planned.workflow.pairs.get(id);
    if (pair?.value === undefined || pair.piece || pair.output === undefined) continue;
    const content = planned.outputs.read(pair);
    hashes.set(pair.output, content && sha256Hex(content));
  }
  return hashes;
}

/** Per-pair estimate tables go in the summary while small; a large workflow gets the one-line form. */
const ESTIMATE_TABLE_LIMIT = 64 * 1024;

function bounded(markdown: string, short: string): string {
  return Buffer.byteLength(markdown) <= ESTIMATE_TABLE_LIMIT ? markdown.trimEnd() : short;
}

// ---------------------------------------------------------------------------------------------

/**
 * Masks the values of the variables that hold provider keys, so the runner hides them wherever
 * they might appear. pairflow never prints them; a generator's output might.
 */
function maskProviderKeys(workflow: Workflow, env: NodeJS.ProcessEnv = process.env): void {
  for (const name of keyVariables(workflow)) {
    const value = env[name];
    if (value) core.setSecret(value);
  }
}

/**
 * The outputs a plan fills: the plan JSON (a plan too large for an output keeps its totals and the
 * pairs that run), the count to run, whether anything changes, the estimated cost, and the whole
 * plan with its estimate written to a file for later steps.
 */
function setPlanOutputs(planned: Planned, cwd: string, env: NodeJS.ProcessEnv): void {
  const { plan, estimate } = planned;
  const json = planJson(plan, cwd);
  let text = JSON.stringify(json);
  if (Buffer.byteLength(text) > OUTPUT_LIMIT) {
    text = JSON.stringify({ ...json, pairs: json.pairs.filter((p) => p.action === "run"), truncated: true });
    if (Buffer.byteLength(text) > OUTPUT_LIMIT) text = JSON.stringify({ ...json, waves: [], pairs: [], truncated: true });
    core.warning(
      `the plan of ${grouped(json.pairs.length)} pairs is larger than a step output holds (1 MB): the plan output is truncated ("truncated": true); the job summary shows the plan, and output plan-file names the whole of it`,
    );
  }
  core.setOutput("plan", text);
  core.setOutput("to-run", String(json.totals.run));
  // What `pairflow plan --check` exits 3 for: a pair would run, or a committed output is stale.
  core.setOutput("has-changes", String(checkFails(planCheck(plan, planned.lock !== null))));
  core.setOutput("estimated-cost", costOutput(estimate));
  const file = path.join(mkdtempSync(path.join(env.RUNNER_TEMP || tmpdir(), "pairflow-plan-")), "plan.json");
  writeFileAtomic(file, JSON.stringify(planJson(plan, cwd, estimate), null, 2) + "\n");
  core.setOutput("plan-file", file);
}

/** US dollars as a plain number ("0.0421"), "0" when nothing runs, empty when any of it is unknown. */
function costOutput(estimate: PlanEstimate): string {
  if (estimate.pairs.length === 0) return "0";
  const cost = estimate.totals.cost;
  return cost === null ? "" : String(Number(cost.toFixed(6)));
}

function cacheLine(inputs: ActionInputs, remote: ActionsCacheStore | undefined): string[] {
  if (!inputs.cache) return ["", "GitHub Actions cache: off (input `cache: false`)."];
  if (!remote) return ["", "GitHub Actions cache: not available to this job; the local store was used."];
  const s = remote.stats;
  const counts =
    inputs.mode === "run"
      ? `${s.found} restored, ${s.saved} saved` + (s.alreadySaved > 0 ? `, ${s.alreadySaved} already saved by another job` : "")
      : s.lookups === 0
        ? "nothing to look up"
        : `${s.found} of ${s.lookups} artifacts looked up found there`;
  const off = remote.disabled ? ` Turned off during the run: ${remote.disabled}.` : "";
  const unsaved = remote.savingOff
    ? ` Saving denied: the cache does not take saves from this job (${remote.savingOff}), so nothing this run accepted is saved there.`
    : remote.notSaved
      ? ` Saving failed: the cache did not take the workflow's state (${remote.notSaved}), so the next job runs again what this one accepted.`
      : "";
  return ["", `GitHub Actions cache (key prefix \`${inputs.cachePrefix}\`): ${counts}.${off}${unsaved}`];
}

/** Text shown as written, in a fence none of its lines can close. */
function fenced(text: string): string {
  const fence = fenceFor(text);
  return `${fence}text\n${text}\n${fence}`;
}

async function writeSummary(markdown: string): Promise<void> {
  if (!process.env.GITHUB_STEP_SUMMARY) return; // not on a runner
  await core.summary.addRaw(markdown).write();
}
