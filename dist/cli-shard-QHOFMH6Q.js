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
} from "./cli-chunk-LMLVZIIO.js";
import "./cli-chunk-74NRXERS.js";
import "./cli-chunk-VWCPAHPU.js";
import "./cli-chunk-4JJEQPFB.js";
import "./cli-chunk-AM42MMQN.js";
import "./cli-chunk-3N45G7H4.js";
import "./cli-chunk-TPNKQGFG.js";
import "./cli-chunk-LAOPAIVL.js";
import "./cli-chunk-PW37734U.js";
import "./cli-chunk-TNYNDC55.js";
import "./cli-chunk-YKULHKX5.js";
import "./cli-chunk-FEFDJVE6.js";
import "./cli-chunk-7NHSQKXA.js";
import "./cli-chunk-BXCSBTXN.js";
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
