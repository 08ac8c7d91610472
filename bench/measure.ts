/**
 * Runs one operation once on one workflow and prints one JSON line of measurements. Started in a
 * fresh process per measurement by bench/run.ts, so peak RSS is this operation's (plus Node, tsx
 * and the modules), not left over from earlier sizes.
 *
 *   node --import tsx bench/measure.ts <workflow file> validate|plan
 */
import { performance } from "node:perf_hooks";

const [workflowPath, op] = process.argv.slice(2);
if (!workflowPath || (op !== "validate" && op !== "plan")) {
  console.error("usage: measure.ts <workflow file> validate|plan");
  process.exit(2);
}

// Module loading (tsx transpiling, schema imports) is timed apart from the operation.
const loadStart = performance.now();
const run: () => Promise<{ pairs: number; skip: number }> =
  op === "validate"
    ? await import("../src/workspace/load.js").then(({ loadWorkflow }) => async () => {
        const { workflow } = loadWorkflow(workflowPath);
        return { pairs: workflow.pairs.size, skip: 0 };
      })
    : await import("../src/app/plan.js").then(({ planTarget }) => async () => {
        const { plan } = await planTarget(workflowPath, { cwd: process.cwd(), env: process.env });
        return { pairs: plan.pairs.length, skip: plan.pairs.filter((p) => p.action === "skip").length };
      });
const loadMs = performance.now() - loadStart;
const rssBeforeMB = process.memoryUsage().rss / 2 ** 20;

const start = performance.now();
const result = await run();
const ms = performance.now() - start;

// maxRSS is in kilobytes.
const peakRssMB = process.resourceUsage().maxRSS / 1024;
console.log(JSON.stringify({ op, ms, loadMs, rssBeforeMB, peakRssMB, ...result }));
