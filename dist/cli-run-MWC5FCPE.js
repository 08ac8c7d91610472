#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import {
  EXIT_BUSY,
  registerRun
} from "./cli-chunk-VJFW66DF.js";
import "./cli-chunk-BLSK4AT4.js";
import "./cli-chunk-DICDJ4YC.js";
import "./cli-chunk-7Z54WWHF.js";
import "./cli-chunk-GWXQPQKB.js";
import "./cli-chunk-SMH46DBM.js";
import "./cli-chunk-IGJZAVGC.js";
import "./cli-chunk-TWZ6XAD3.js";
import "./cli-chunk-4GFFP5NS.js";
import "./cli-chunk-EBXTHJ7R.js";
import "./cli-chunk-FRMEDJY7.js";
import "./cli-chunk-7XSAPEIW.js";
import "./cli-chunk-WNU7MVIX.js";
import "./cli-chunk-NRKDSK7E.js";
import "./cli-chunk-FRV2UMY2.js";
export {
  EXIT_BUSY,
  registerRun
};
