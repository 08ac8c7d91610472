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
} from "./cli-chunk-Z72MM54R.js";
import "./cli-chunk-B7HKPL3N.js";
import "./cli-chunk-VWCPAHPU.js";
import "./cli-chunk-PAY2XI2D.js";
import "./cli-chunk-PCKSVTGQ.js";
import "./cli-chunk-UJGV7HCG.js";
import "./cli-chunk-BFYGHVKA.js";
import "./cli-chunk-PJIHPJWZ.js";
import "./cli-chunk-LYJYPHIF.js";
import "./cli-chunk-TNYNDC55.js";
import "./cli-chunk-CCH6LTP6.js";
import "./cli-chunk-6HNAVPDO.js";
import "./cli-chunk-GHRPXVUM.js";
import "./cli-chunk-LK7V5ONL.js";
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
