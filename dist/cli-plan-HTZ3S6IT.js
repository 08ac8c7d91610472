#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import {
  registerPlan,
  showPlan
} from "./cli-chunk-3JMUD4Z2.js";
import "./cli-chunk-P7NKKKK5.js";
import "./cli-chunk-7Z54WWHF.js";
import "./cli-chunk-GWXQPQKB.js";
import "./cli-chunk-NRW3WZWC.js";
import "./cli-chunk-FNJWCLCE.js";
import "./cli-chunk-7MWHRLVG.js";
import "./cli-chunk-4GFFP5NS.js";
import "./cli-chunk-F4F2Q3QN.js";
import "./cli-chunk-C3DQR4JT.js";
import "./cli-chunk-7XSAPEIW.js";
import "./cli-chunk-WNU7MVIX.js";
import "./cli-chunk-NRKDSK7E.js";
import "./cli-chunk-FRV2UMY2.js";
export {
  registerPlan,
  showPlan
};
