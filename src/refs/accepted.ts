import { sha256Hex } from "./hash.js";

/**
 * The accepted content a hash names, as an output file holds it: the file's bytes when they are
 * exactly that content, its text with CRLF line endings turned back into LF when that is (a
 * checkout on Windows: see textHashes), else undefined (the file holds something else). What a
 * dependent is given is then always the content its reference records.
 */
export function acceptedBytes(file: Buffer, hash: string): Buffer | undefined {
  if (sha256Hex(file) === hash) return file;
  if (file.includes(0) || !file.includes("\r\n")) return undefined;
  // latin1 maps every byte to one character and back, so only CR LF pairs change.
  const text = Buffer.from(file.toString("latin1").replace(/\r\n/g, "\n"), "latin1");
  return sha256Hex(text) === hash ? text : undefined;
}
