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
} from "./cli-chunk-VW7RH6KJ.js";
import "./cli-chunk-LDMDGSFC.js";
import "./cli-chunk-7FHXPVA6.js";
import "./cli-chunk-K76FIR5O.js";
import "./cli-chunk-4RLFRJCN.js";
import "./cli-chunk-JXFJCRTJ.js";
import "./cli-chunk-UN2KQV4D.js";
import "./cli-chunk-ZJOEIDIN.js";
import "./cli-chunk-TNYNDC55.js";
import "./cli-chunk-RNZWODG5.js";
import "./cli-chunk-WPBTRU4R.js";
import "./cli-chunk-KFIGEPQS.js";
import "./cli-chunk-MEFASQUO.js";
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
