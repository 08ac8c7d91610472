import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import {
  compileJsonSchema
} from "./index-chunk-MVFDLV2K.js";
import "./index-chunk-YGZKRGIO.js";
export {
  compileJsonSchema
};
