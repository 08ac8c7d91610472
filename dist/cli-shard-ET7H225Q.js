#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import {
  fanOutOptions,
  registerMerge,
  shardOption,
  shardWaitOption,
  shardsJson,
  shardsText
} from "./cli-chunk-Y5P5ULP2.js";
import "./cli-chunk-7Z54WWHF.js";
import "./cli-chunk-7GGQ2ELO.js";
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
  fanOutOptions,
  registerMerge,
  shardOption,
  shardWaitOption,
  shardsJson,
  shardsText
};
