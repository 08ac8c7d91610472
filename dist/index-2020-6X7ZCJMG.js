import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import {
  require__
} from "./index-chunk-ZGIHEDD6.js";
import "./index-chunk-YGZKRGIO.js";
export default require__();
