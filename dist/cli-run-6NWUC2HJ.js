#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import {
  EXIT_BUSY,
  registerRun
} from "./cli-chunk-52SW6UJZ.js";
import "./cli-chunk-JWWJA2CI.js";
import "./cli-chunk-FCP4EODY.js";
import "./cli-chunk-MTTGQQZV.js";
import "./cli-chunk-A3PBEVLE.js";
import "./cli-chunk-L23Z6SPQ.js";
import "./cli-chunk-R62A2YFQ.js";
import "./cli-chunk-TKHV46VF.js";
import "./cli-chunk-S3J7BHJD.js";
import "./cli-chunk-5FFV6NHO.js";
import "./cli-chunk-M5B6EPR7.js";
import "./cli-chunk-IBQJ6QCZ.js";
import "./cli-chunk-ZTYHHU54.js";
import "./cli-chunk-NRKDSK7E.js";
import "./cli-chunk-FRV2UMY2.js";
export {
  EXIT_BUSY,
  registerRun
};
