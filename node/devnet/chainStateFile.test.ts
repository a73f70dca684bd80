/** The last good copy of an Anvil state file (chainStateFile.ts): kept at each start, put back when a dump was torn. */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { keepLastGoodState } from "./chainStateFile.ts";

let dir: string;
let path: string;
const state = (block: number) =>
  JSON.stringify({ block: { number: `0x${block.toString(16)}` }, accounts: { "0x01": { balance: "0x1" } } });

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "state-file-"));
  path = join(dir, "settlement-state.json");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

test("no state file: a new chain, nothing copied", () => {
  expect(keepLastGoodState(path)).toEqual({ kind: "none" });
  expect(existsSync(`${path}.good`)).toBe(false);
});

test("a whole state file becomes the last good copy, and stays where Anvil loads it", () => {
  writeFileSync(path, state(5));
  expect(keepLastGoodState(path)).toEqual({ kind: "good" });
  expect(readFileSync(`${path}.good`, "utf8")).toBe(state(5));
  expect(readFileSync(path, "utf8")).toBe(state(5));
  expect(existsSync(`${path}.good.tmp`)).toBe(false);
});

test("a dump torn by a SIGKILL gives way to the last good copy; the torn file is kept beside it", () => {
  writeFileSync(path, state(5));
  keepLastGoodState(path);
  const torn = state(9).slice(0, 30);
  writeFileSync(path, torn);
  expect(keepLastGoodState(path)).toEqual({ kind: "restored", torn: `${path}.torn` });
  expect(readFileSync(path, "utf8")).toBe(state(5));
  expect(readFileSync(`${path}.torn`, "utf8")).toBe(torn);
});

test("a torn dump with no good copy (killed during the first run's dump) is moved aside: the chain starts anew", () => {
  writeFileSync(path, "");
  expect(keepLastGoodState(path)).toEqual({ kind: "lost", torn: `${path}.torn` });
  expect(existsSync(path)).toBe(false);
});
