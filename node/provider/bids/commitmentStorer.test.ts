/**
 * A store transaction that cannot reach the settlement chain fails nothing: the commitment stays pending, the
 * transaction is sent again while the node runs, and a stopped storer leaves it pending for the next start's
 * reconciliation (node/devnet/cleanStop.test.ts shows that end to end). The chain here is a real HTTP endpoint with
 * nothing listening on it: every request is refused, as while a chain restarts or after it stopped first.
 */
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { devAccount, ROLES } from "../../chain/accounts.ts";
import { chainClients, localChain } from "../../chain/clients.ts";
import { NodeStore } from "../../store/db.ts";
import { CommitmentStore } from "../../tracker/commitmentStore.ts";
import type { CommitmentRecord } from "../../tracker/record.ts";
import { setLogSink } from "../../util/log.ts";
import { freePort } from "../../util/ports.ts";
import { CommitmentStorer } from "./commitmentStorer.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function pendingRecord(): CommitmentRecord {
  const hex32 = (salt: number) => salt.toString(16).padStart(64, "0");
  return {
    digest: hex32(1),
    commitmentIndex: hex32(2),
    commitmentSignature: "ab".repeat(65),
    bidDigest: hex32(3),
    bidSignature: "cd".repeat(65),
    bidder: "bb".repeat(20),
    provider: "aa".repeat(20),
    txnHash: hex32(4),
    revertingTxHashes: "",
    rawTransactions: [],
    bidAmount: 10n ** 15n,
    blockNumber: 7n,
    decayStart: 1_764_000_000_000n,
    decayEnd: 1_764_000_012_000n,
    dispatchTimestamp: 1_764_000_000_500n,
    slashAmount: 0n,
    bidderPkX: 5n,
    bidderPkY: 6n,
    sharedX: 7n,
    sharedY: 8n,
    status: "pending",
    details: "",
    payment: "",
    refund: "",
  };
}

test("a store transaction the chain cannot take for want of a connection leaves the commitment pending and is sent again", async () => {
  const dir = mkdtempSync(join(tmpdir(), "storer-"));
  dirs.push(dir);
  const lines: string[] = [];
  setLogSink((line) => lines.push(line));
  const store = new NodeStore(join(dir, "provider.db"));
  const commitments = new CommitmentStore(store);
  const r = pendingRecord();
  await commitments.record(r);
  const url = `http://127.0.0.1:${await freePort()}`;
  const storer = new CommitmentStorer(
    chainClients(localChain(17864, url), devAccount(ROLES.firstProvider).privateKey),
    "0x000000000000000000000000000000000000c0de",
    commitments,
  );
  const failures: string[] = [];
  storer.onStoreFailed = (digest) => failures.push(digest);

  storer.restore(r);
  // The first attempt and at least one more (the first wait is 500 ms).
  const until = Date.now() + 20_000;
  while (lines.filter((l) => l.includes("storing the commitment again soon")).length < 2 && Date.now() < until)
    await Bun.sleep(50);
  expect(lines.filter((l) => l.includes("storing the commitment again soon")).length).toBeGreaterThanOrEqual(2);
  expect(commitments.get(r.digest)).toMatchObject({ status: "pending", details: "" });

  // A stop ends the retries at once; the commitment stays pending for the next start.
  const t0 = performance.now();
  storer.stop();
  await storer.drain();
  expect(performance.now() - t0).toBeLessThan(2_000);
  expect(commitments.get(r.digest)).toMatchObject({ status: "pending", details: "" });
  expect(failures).toEqual([]);
  store.close();
}, 30_000);
