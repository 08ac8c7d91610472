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
} from "./cli-chunk-BDDEBYNR.js";
import "./cli-chunk-TDRAPLR2.js";
import "./cli-chunk-VWCPAHPU.js";
import "./cli-chunk-6TGO2WHL.js";
import "./cli-chunk-V6VHYKEN.js";
import "./cli-chunk-ASKVB75M.js";
import "./cli-chunk-VRV3JKO3.js";
import "./cli-chunk-CSPXBCVV.js";
import "./cli-chunk-OJRXL5W6.js";
import "./cli-chunk-TNYNDC55.js";
import "./cli-chunk-EJHNHSBV.js";
import "./cli-chunk-2ZCI4VI7.js";
import "./cli-chunk-YPOPDKQS.js";
import "./cli-chunk-LHZ5JPMA.js";
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
