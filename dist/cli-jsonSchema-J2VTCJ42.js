#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import {
  compileJsonSchema
} from "./cli-chunk-7Z54WWHF.js";
import "./cli-chunk-NRKDSK7E.js";
import "./cli-chunk-FRV2UMY2.js";
export {
  compileJsonSchema
};
