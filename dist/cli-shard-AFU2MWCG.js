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
} from "./cli-chunk-MQMZJABT.js";
import "./cli-chunk-MTTGQQZV.js";
import "./cli-chunk-DY6RRQ6Q.js";
import "./cli-chunk-ZG4QBACJ.js";
import "./cli-chunk-7EAMMA22.js";
import "./cli-chunk-N24MC3HO.js";
import "./cli-chunk-2E6W6ZDS.js";
import "./cli-chunk-5GU4VXDG.js";
import "./cli-chunk-EMRHIRZ4.js";
import "./cli-chunk-2H4FS6GE.js";
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
