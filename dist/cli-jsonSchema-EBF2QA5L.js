#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import {
  compileJsonSchema
} from "./cli-chunk-UC6UFBNK.js";
import "./cli-chunk-4XZ3ROSU.js";
import "./cli-chunk-FRV2UMY2.js";
export {
  compileJsonSchema
};
