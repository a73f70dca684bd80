import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { holdsSlashByte, SLASH_BYTE_DIGEST } from "./support/slashByteDigest.ts";

test("a digest holds the byte 0x2f only on a byte boundary", () => {
  // The digest of the commitment upstream's provider 2 lost in a run (docs/conformance.md §10): …1f 2f d4…
  expect(holdsSlashByte("135dbe1e095ad12df4ec9e267041f6c8f525fc6a1f2fd4fd2108bf9be273dd8f")).toBe(true);
  expect(holdsSlashByte(`0x2f${"00".repeat(31)}`)).toBe(true);
  // "2f" across two bytes (0x02, 0xf0) is no "/".
  expect(holdsSlashByte(`02f0${"11".repeat(30)}`)).toBe(false);
  expect(holdsSlashByte("11".repeat(32))).toBe(false);
});

test("its observation names an entry of docs/divergences.md", () => {
  const text = readFileSync(join(import.meta.dir, "..", "docs", "divergences.md"), "utf8");
  expect(text).toContain(`| ${SLASH_BYTE_DIGEST} `);
});
