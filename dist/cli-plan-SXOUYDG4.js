#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import {
  registerPlan,
  showPlan
} from "./cli-chunk-I4KXEGSL.js";
import "./cli-chunk-LXK577MZ.js";
import "./cli-chunk-7Z54WWHF.js";
import "./cli-chunk-QKL2J4LT.js";
import "./cli-chunk-ZHCOJHFW.js";
import "./cli-chunk-BXAZKQRM.js";
import "./cli-chunk-VJTNBAMU.js";
import "./cli-chunk-YTQL7ZLS.js";
import "./cli-chunk-XWROBFZG.js";
import "./cli-chunk-5ZWDE2EE.js";
import "./cli-chunk-IBFPC2Q6.js";
import "./cli-chunk-YFM4J6CT.js";
import "./cli-chunk-NRKDSK7E.js";
import "./cli-chunk-FRV2UMY2.js";
export {
  registerPlan,
  showPlan
};
