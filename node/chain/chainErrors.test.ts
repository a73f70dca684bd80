/**
 * The gRPC codes of chain failures, against a real automining Anvil with the protocol contracts: a balance too small
 * for a deposit and a revert the caller can avoid are FailedPrecondition with upstream's text and a hint; a chain
 * that cannot be reached is Unavailable.
 */
import { describe, expect, test } from "bun:test";
import { defineChain, parseEther } from "viem";
import { BidderRegistryClient } from "../bidder/deposits/window/registry.ts";
import { FailedPreconditionError, GrpcCode, RpcError } from "../protocol/grpcCodes.ts";
import { addr, chainPerTestFile, type Harness, key } from "../testing/chainHarness.ts";
import { freePort } from "../util/ports.ts";
import { ROLES } from "./accounts.ts";
import { chainClients } from "./clients.ts";

const BIDDER = ROLES.bidder;
let h: Harness;
chainPerTestFile({ name: "chain-errors", chainId: 31337, providers: 0 }, (x) => (h = x));

const registry = () => new BidderRegistryClient(chainClients(h.chain, key(BIDDER)), h.addresses);

async function failure(p: Promise<unknown>): Promise<RpcError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(RpcError);
    return e as RpcError;
  }
  throw new Error("expected a failure");
}

describe("chain errors answered as the caller's problem", () => {
  test("a deposit larger than the account's balance: FailedPrecondition with the balance, no transaction", async () => {
    const balance = await h.balance(addr(BIDDER));
    const nonce = await h.publicClient.getTransactionCount({ address: addr(BIDDER) });
    const e = await failure(registry().depositForWindow(5n, balance + parseEther("1")));
    expect(e).toBeInstanceOf(FailedPreconditionError);
    expect(e.httpStatus).toBe(400);
    expect(e.message).toStartWith("deposit: ");
    expect(e.message).toContain(`insufficient funds: account ${addr(BIDDER)} holds ${balance} wei`);
    expect(e.message).toEndWith(
      `the transaction needs ${balance + parseEther("1")} wei plus gas; send less or fund the account`,
    );
    expect(await h.publicClient.getTransactionCount({ address: addr(BIDDER) })).toBe(nonce);
    // The refused transaction's nonce is not lost: the next one is mined (it would wait forever behind a gap).
    const next = await registry().depositForWindow(5n, parseEther("1"));
    expect(next.amount).toBe(parseEther("1"));
  });

  test("a deposit into two windows whose total is above 2^256-1 (the chain refuses it as invalid parameters): FailedPrecondition, not Internal", async () => {
    const balance = await h.balance(addr(BIDDER));
    const perWindow = (1n << 255n) + 1n; // AutoDeposit's start: the amount into the start window and the next, in one transaction
    const e = await failure(registry().depositForWindows([5n, 6n], perWindow));
    expect(e).toBeInstanceOf(FailedPreconditionError);
    expect(e.httpStatus).toBe(400);
    expect(e.message).toStartWith("deposit: ");
    expect(e.message).toContain(`insufficient funds: account ${addr(BIDDER)} holds ${balance} wei`);
    expect(e.message).toEndWith(`the transaction needs ${perWindow * 2n} wei plus gas; send less or fund the account`);
    // The nonce is not lost to the refused transaction.
    expect((await registry().depositForWindow(5n, parseEther("1"))).amount).toBe(parseEther("1"));
  });

  test("withdrawing a window that has not closed: FailedPrecondition, upstream's revert text and when to retry", async () => {
    const current = await registry().currentWindow();
    const e = await failure(registry().withdrawFromWindows([current]));
    expect(e.code).toBe(GrpcCode.FailedPrecondition);
    expect(e.message).toBe(
      `waiting for receipt: transaction failed: WithdrawAfterWindowSettled(window=${current}, currentWindow=${current}): ` +
        `window ${current} has not closed yet (current window ${current}); withdraw it after it closes`,
    );
  });
});

describe("an unreachable chain", () => {
  test("reads and transactions are Unavailable (HTTP 503)", async () => {
    const port = await freePort();
    const gone = defineChain({ ...h.chain, rpcUrls: { default: { http: [`http://127.0.0.1:${port}`] } } });
    const r = new BidderRegistryClient(chainClients(gone, key(BIDDER)), h.addresses);
    const read = await failure(r.currentWindow());
    expect(read.code).toBe(GrpcCode.Unavailable);
    expect(read.message).toStartWith("getting current window: ");
    const send = await failure(r.depositForWindow(5n, 1n));
    expect(send.code).toBe(GrpcCode.Unavailable);
    expect(send.httpStatus).toBe(503);
    expect(send.message).toStartWith("deposit: ");
  });
});
