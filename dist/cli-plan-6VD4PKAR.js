#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import {
  registerPlan,
  showPlan
} from "./cli-chunk-A6IJZBLN.js";
import "./cli-chunk-VCO3NAEK.js";
import "./cli-chunk-MTTGQQZV.js";
import "./cli-chunk-JSINCKR6.js";
import "./cli-chunk-GMTJFFKO.js";
import "./cli-chunk-NO65BCGB.js";
import "./cli-chunk-ZM2CAKLC.js";
import "./cli-chunk-UTEE543G.js";
import "./cli-chunk-OKWFXXS3.js";
import "./cli-chunk-HW747WHK.js";
import "./cli-chunk-B4TCATGP.js";
import "./cli-chunk-NRKDSK7E.js";
import "./cli-chunk-FRV2UMY2.js";
export {
  registerPlan,
  showPlan
};
