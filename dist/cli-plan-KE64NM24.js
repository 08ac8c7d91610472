#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import {
  registerPlan,
  showPlan
} from "./cli-chunk-BGJUXHEF.js";
import "./cli-chunk-YAKZ4ZZP.js";
import "./cli-chunk-MTTGQQZV.js";
import "./cli-chunk-A3PBEVLE.js";
import "./cli-chunk-L23Z6SPQ.js";
import "./cli-chunk-KYFZVCMF.js";
import "./cli-chunk-QC5CMK7N.js";
import "./cli-chunk-KXN2Q5WX.js";
import "./cli-chunk-5FFV6NHO.js";
import "./cli-chunk-M5B6EPR7.js";
import "./cli-chunk-IBQJ6QCZ.js";
import "./cli-chunk-ZTYHHU54.js";
import "./cli-chunk-NRKDSK7E.js";
import "./cli-chunk-FRV2UMY2.js";
export {
  registerPlan,
  showPlan
};
