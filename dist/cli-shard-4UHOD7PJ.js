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
} from "./cli-chunk-EU4POBXR.js";
import "./cli-chunk-UC6UFBNK.js";
import "./cli-chunk-OFBYRAPK.js";
import "./cli-chunk-IXM4OVCY.js";
import "./cli-chunk-MMPKODQT.js";
import "./cli-chunk-AJVOOCRO.js";
import "./cli-chunk-XGOMPHHD.js";
import "./cli-chunk-DSTVUMR6.js";
import "./cli-chunk-MV7565KH.js";
import "./cli-chunk-WGU5J5QM.js";
import "./cli-chunk-NW47I5JW.js";
import "./cli-chunk-IBG45BKD.js";
import "./cli-chunk-4XZ3ROSU.js";
import "./cli-chunk-FRV2UMY2.js";
export {
  fanOutOptions,
  registerMerge,
  shardOption,
  shardWaitOption,
  shardsJson,
  shardsText
};
