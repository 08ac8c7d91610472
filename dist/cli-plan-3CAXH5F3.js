#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import {
  registerPlan,
  showPlan
} from "./cli-chunk-OUXKALGU.js";
import "./cli-chunk-WA6KBHD7.js";
import "./cli-chunk-MTTGQQZV.js";
import "./cli-chunk-4NIAO27Y.js";
import "./cli-chunk-JXBRKHVK.js";
import "./cli-chunk-RUSWWH2B.js";
import "./cli-chunk-RQMYVLP3.js";
import "./cli-chunk-LAUXBCWG.js";
import "./cli-chunk-ICRHQSO4.js";
import "./cli-chunk-UXQZIDNL.js";
import "./cli-chunk-IBQJ6QCZ.js";
import "./cli-chunk-C6S6WVK6.js";
import "./cli-chunk-NRKDSK7E.js";
import "./cli-chunk-FRV2UMY2.js";
export {
  registerPlan,
  showPlan
};
