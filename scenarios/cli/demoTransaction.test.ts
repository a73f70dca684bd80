/** The nonce `npm run bid` signs with, given the L1's nonces and the earlier bids' transactions it recorded. */
import { describe, expect, test } from "bun:test";
import { chooseNonce, type SentTransaction } from "./demoTransaction.ts";

const sent = (nonce: number, block: number): SentTransaction => ({
  hash: `0x${String(nonce).padStart(64, "0")}`,
  nonce,
  block: String(block),
  head: "1",
  headHash: `0x${"11".repeat(32)}`,
});

describe("chooseNonce", () => {
  test("nothing waiting: the account's pending nonce", () => {
    expect(chooseNonce({ pending: 4, mined: 4, head: 10n, block: 12n, waiting: [] }).nonce).toBe(4);
  });

  test("earlier transactions waiting for later blocks: one past the highest of them", () => {
    const r = chooseNonce({ pending: 4, mined: 4, head: 10n, block: 12n, waiting: [sent(4, 12), sent(5, 12)] });
    expect(r.nonce).toBe(6);
    expect(r.why).toContain("one past 5");
    expect(r.why).not.toContain("hold lower nonces");
  });

  test("transactions mined, or whose block passed without them, hold no nonce", () => {
    expect(chooseNonce({ pending: 6, mined: 6, head: 10n, block: 12n, waiting: [sent(5, 12)] }).nonce).toBe(6);
    expect(chooseNonce({ pending: 4, mined: 4, head: 12n, block: 14n, waiting: [sent(4, 12)] }).nonce).toBe(4);
  });

  test("an earlier bid for a later block: the new transaction waits for it, and says so", () => {
    const r = chooseNonce({ pending: 4, mined: 4, head: 10n, block: 12n, waiting: [sent(4, 15)] });
    expect(r.nonce).toBe(5);
    expect(r.why).toContain("earlier bids for block(s) 15, after 12, hold lower nonces");
  });
});
