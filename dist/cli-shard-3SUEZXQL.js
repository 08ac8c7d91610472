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
} from "./cli-chunk-RARUEJ6U.js";
import "./cli-chunk-7Z54WWHF.js";
import "./cli-chunk-7GGQ2ELO.js";
import "./cli-chunk-MS42S3SF.js";
import "./cli-chunk-7KZ3YKNI.js";
import "./cli-chunk-L65GZXMX.js";
import "./cli-chunk-S3J7BHJD.js";
import "./cli-chunk-TBZEW72S.js";
import "./cli-chunk-2OEVZ5PF.js";
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
