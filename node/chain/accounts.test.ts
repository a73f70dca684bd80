/** The devnet's own keys are none of the keys the docs hand to other nodes, so no two nodes share a peer ID. */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ANVIL_DEFAULT_ACCOUNT_COUNT, devAccount, ROLES } from "./accounts.ts";

const DOCS = join(import.meta.dir, "..", "..", "docs");

test("the devnet's bootnode key is not the one docs/conformance.md gives upstream's bootnode", () => {
  const conformance = readFileSync(join(DOCS, "conformance.md"), "utf8");
  const handed = /bootnode account (\d+)/.exec(conformance);
  expect(handed).not.toBeNull();
  expect(devAccount(ROLES.bootnode).privateKey).not.toBe(devAccount(Number(handed![1])).privateKey);
});

test("the devnet's bootnode key is none of the funded dev accounts (the docs hand those out)", () => {
  // Anvil funds 30 accounts on the devnet's chains (node/chain/anvil.ts); all of them are someone's to use.
  expect(ROLES.bootnode).toBeGreaterThanOrEqual(30);
  expect(ROLES.bootnode).toBeGreaterThan(ANVIL_DEFAULT_ACCOUNT_COUNT);
});
