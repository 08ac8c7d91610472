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
} from "./cli-chunk-DCKTTDTZ.js";
import "./cli-chunk-MTTGQQZV.js";
import "./cli-chunk-5QSYW4FG.js";
import "./cli-chunk-TLUX2JTT.js";
import "./cli-chunk-EPE2XKRN.js";
import "./cli-chunk-IAE65XAW.js";
import "./cli-chunk-A32TCDD3.js";
import "./cli-chunk-XFOYBHB6.js";
import "./cli-chunk-KVYGJUGL.js";
import "./cli-chunk-IBQJ6QCZ.js";
import "./cli-chunk-DZGNIWIN.js";
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
