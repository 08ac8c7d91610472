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
} from "./cli-chunk-5ITR3PZ6.js";
import "./cli-chunk-7Z54WWHF.js";
import "./cli-chunk-CZV3DMPE.js";
import "./cli-chunk-Q7KJJX37.js";
import "./cli-chunk-K77XARSG.js";
import "./cli-chunk-THYTCI7H.js";
import "./cli-chunk-E7FTIRSQ.js";
import "./cli-chunk-S7VYU5HS.js";
import "./cli-chunk-F45ITKSN.js";
import "./cli-chunk-KXFCEU3I.js";
import "./cli-chunk-PQWGCFOQ.js";
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
