#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import {
  registerPlan,
  showPlan
} from "./cli-chunk-H7JE225V.js";
import "./cli-chunk-KU6I6OX4.js";
import "./cli-chunk-7Z54WWHF.js";
import "./cli-chunk-SQID6QGP.js";
import "./cli-chunk-MDWX7MPJ.js";
import "./cli-chunk-ODAVUA3N.js";
import "./cli-chunk-HAD2WZ7T.js";
import "./cli-chunk-JSZDEJKQ.js";
import "./cli-chunk-JI2LPXRF.js";
import "./cli-chunk-MV7565KH.js";
import "./cli-chunk-HXCATSVJ.js";
import "./cli-chunk-V4FBBNQN.js";
import "./cli-chunk-7KV5Z5U7.js";
import "./cli-chunk-NRKDSK7E.js";
import "./cli-chunk-FRV2UMY2.js";
export {
  registerPlan,
  showPlan
};
