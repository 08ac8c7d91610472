import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import {
  RetryBudget,
  restore,
  save
} from "./index-chunk-TXM2BVLM.js";
import "./index-chunk-36MXEOPK.js";
import "./index-chunk-FYY37R2X.js";
import "./index-chunk-V4KIBFXN.js";
import {
  __name
} from "./index-chunk-YGZKRGIO.js";

// src/github/fanout.ts
import path from "node:path";
function cacheSync(calls, prefix, fanout, workspace) {
  const keyOf = /* @__PURE__ */ __name((shard) => `${prefix}-fanout-${fanout}-${shard.index}of${shard.count}-`, "keyOf");
  const pathOf = /* @__PURE__ */ __name((shared, shard) => path.relative(workspace, shared.outboxDir(shard)) || ".", "pathOf");
  let sequence = 0;
  return (shared, self) => ({
    async pull(owner) {
      await calls.restoreNewest([pathOf(shared, owner)], keyOf(owner));
    },
    async push() {
      const key = `${keyOf(self)}${Date.now().toString(36).padStart(9, "0")}-${++sequence}`;
      await calls.save([pathOf(shared, self)], key);
    }
  });
}
__name(cacheSync, "cacheSync");
function cacheSplit(calls, prefix, fanout, workspace) {
  const key = `${prefix}-fanout-${fanout}-split`;
  const pathOf = /* @__PURE__ */ __name((shared) => path.relative(workspace, shared.splitDir()) || ".", "pathOf");
  return {
    async push(shared) {
      await calls.save([pathOf(shared)], key);
    },
    async pull(shared) {
      await calls.restoreNewest([pathOf(shared)], key);
    }
  };
}
__name(cacheSplit, "cacheSplit");
function actionsCacheCalls(options) {
  const counts = { uploads: 0, downloads: 0, retries: 0, waitedMs: 0 };
  const warned = /* @__PURE__ */ new Set();
  const warn = /* @__PURE__ */ __name((what, reason) => {
    if (warned.has(what)) return;
    warned.add(what);
    options.warn(`the shards' exchange through the GitHub Actions cache could not ${what} (${reason}); going on`);
  }, "warn");
  const budget = /* @__PURE__ */ __name(() => new RetryBudget(options.retryMs ?? 6e4), "budget");
  return {
    counts,
    async restoreNewest(paths, prefix) {
      const got = await restore(paths, prefix, [prefix], budget(), counts);
      if ("key" in got) return true;
      if (got.kind !== "missing") warn("restore another shard's artifacts", got.reason);
      return false;
    },
    async save(paths, key) {
      const done = await save(paths, key, budget(), counts);
      if (done.kind === "denied" || done.kind === "failed") warn("save this shard's artifacts", done.reason);
    }
  };
}
__name(actionsCacheCalls, "actionsCacheCalls");
export {
  actionsCacheCalls,
  cacheSplit,
  cacheSync
};
