/**
 * ProviderStakeService and claimSlashedFunds against a real automining Anvil with the protocol contracts: the
 * contract calls, the amounts answered from events, and upstream's error texts.
 */
import { describe, expect, test } from "bun:test";
import { parseEther } from "viem";
import { claimSlashedFunds } from "../../bidder/slashedFunds.ts";
import { ROLES } from "../../chain/accounts.ts";
import { chainClients } from "../../chain/clients.ts";
import { builderKeyFor } from "../../chain/deploy.ts";
import { FailedPreconditionError, InvalidArgumentError } from "../../protocol/grpcCodes.ts";
import { addr, chainPerTestFile, type Harness, key } from "../../testing/chainHarness.ts";
import { parseStakeRequest } from "./stakeRequest.ts";
import { ProviderStakeService } from "./stakeService.ts";

const P0 = ROLES.firstProvider;
const OUTSIDER = 8;
const DELAY_MS = 5_000n;
const KEY = `0x${"ab".repeat(48)}`;
const SIG = `0x${"cd".repeat(96)}`;

let h: Harness;
chainPerTestFile(
  { name: "stake", chainId: 31337, providers: 1, params: { withdrawalDelay: DELAY_MS } },
  (x) => (h = x),
);

const service = (i: number) => new ProviderStakeService(chainClients(h.chain, key(i)), h.addresses);

async function failure(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (e) {
    return e as Error;
  }
  throw new Error("expected a failure");
}

describe("reads", () => {
  test("get stake: the registered provider's stake and builder key", async () => {
    const s = await service(P0).getStake();
    expect(s).toEqual({ amount: parseEther("10"), blsPublicKeys: [builderKeyFor(addr(P0))] });
  });

  test("get stake of an unregistered account: 0 and no keys", async () => {
    expect(await service(OUTSIDER).getStake()).toEqual({ amount: 0n, blsPublicKeys: [] });
  });

  test("min stake and an empty reward", async () => {
    expect(await service(P0).getMinStake()).toBe(parseEther("10"));
    expect(await service(P0).getReward()).toBe(0n);
  });
});

describe("stake", () => {
  test("a registered provider adds stake; the answer is the amount added", async () => {
    const s = service(P0);
    expect(await s.stake(parseStakeRequest("1000000000000000000"))).toEqual({
      amount: parseEther("1"),
      blsPublicKeys: [],
    });
    expect((await s.getStake()).amount).toBe(parseEther("11"));
  });

  test("an unregistered provider without keys or signatures is refused before any transaction", async () => {
    const s = service(OUTSIDER);
    const nonce = await h.publicClient.getTransactionCount({ address: addr(OUTSIDER) });
    const noKeys = await failure(s.stake(parseStakeRequest("10000000000000000000")));
    expect(noKeys).toBeInstanceOf(InvalidArgumentError);
    expect(noKeys.message).toBe("missing BLS keys");
    const noSigs = await failure(s.stake(parseStakeRequest("10000000000000000000", { bls_public_keys: [KEY] })));
    expect(noSigs.message).toBe("missing BLS signatures");
    expect(await h.publicClient.getTransactionCount({ address: addr(OUTSIDER) })).toBe(nonce);
  });

  test("a registered provider naming a key without a signature is refused (upstream crashes after staking)", async () => {
    const e = await failure(service(P0).stake(parseStakeRequest("1", { blsPublicKeys: [KEY] })));
    expect(e.message).toBe("missing BLS signatures");
    expect((await service(P0).getStake()).amount).toBe(parseEther("10"));
  });

  test("registering: stake goes in, then the key fails verification (no BLS precompile on Anvil)", async () => {
    const s = service(OUTSIDER);
    const e = await failure(
      s.stake(parseStakeRequest("10000000000000000000", { bls_public_keys: [KEY], bls_signatures: [SIG] })),
    );
    expect(e).toBeInstanceOf(InvalidArgumentError);
    expect(e.message).toStartWith(
      "waiting for receipt for adding verified bls key: transaction failed: BLSSignatureInvalid(): the BLS signature does not verify",
    );
    expect(await s.getStake()).toEqual({ amount: parseEther("10"), blsPublicKeys: [] });
  });

  test("registering below the minimum stake reverts with upstream's receipt text", async () => {
    const e = await failure(
      service(OUTSIDER).stake(parseStakeRequest("1", { bls_public_keys: [KEY], bls_signatures: [SIG] })),
    );
    expect(e).toBeInstanceOf(FailedPreconditionError);
    expect(e.message).toBe(
      "waiting for receipt for registration: transaction failed: InsufficientStake(stake=1, minStake=10000000000000000000): stake at least the minimum stake of 10000000000000000000 wei",
    );
  });
});

describe("unstake and withdraw", () => {
  test("unstake, refused early withdrawal, withdrawal after the delay", async () => {
    const s = service(P0);
    await s.unstake();
    const again = await failure(s.unstake());
    expect(again).toBeInstanceOf(FailedPreconditionError);
    expect(again.message).toBe(
      `waiting for receipt: transaction failed: UnstakeRequestExists(sender=${addr(P0)}): an unstake request is already pending; call withdraw_stake once the withdrawal delay has passed`,
    );
    const stakeMore = await failure(s.stake(parseStakeRequest("1")));
    expect(stakeMore.message).toBe(
      `waiting for receipt for registration: transaction failed: PendingWithdrawalRequest(sender=${addr(P0)}): an unstake request is pending; withdraw the stake (withdraw_stake) before staking again`,
    );
    const early = await failure(s.withdrawStake());
    expect(early).toBeInstanceOf(FailedPreconditionError);
    expect(early.message).toMatch(
      /^waiting for receipt: transaction failed: DelayNotPassed\(withdrawalRequestTimestamp=(\d+), withdrawalDelay=5000, currentBlockTimestamp=\d+\): the withdrawal delay has not passed; call withdraw_stake again after \d+ \(Unix ms, \d+ (s|ms) from the last block\)$/,
    );
    await h.testClient.increaseTime({ seconds: Number(DELAY_MS / 1000n) + 1 });
    await h.testClient.mine({ blocks: 1 });
    expect(await s.withdrawStake()).toBe(parseEther("10"));
    expect((await s.getStake()).amount).toBe(0n);
  });

  test("unstake without stake reverts", async () => {
    const e = await failure(service(OUTSIDER).unstake());
    expect(e).toBeInstanceOf(FailedPreconditionError);
    expect(e.message).toBe(
      `waiting for receipt: transaction failed: NoStakeToWithdraw(sender=${addr(OUTSIDER)}): this provider has no stake`,
    );
  });
});

describe("nothing to withdraw or claim", () => {
  test("withdraw provider reward answers 0 without a transaction", async () => {
    const nonce = await h.publicClient.getTransactionCount({ address: addr(P0) });
    expect(await service(P0).withdrawReward()).toBe(0n);
    expect(await h.publicClient.getTransactionCount({ address: addr(P0) })).toBe(nonce);
  });

  test("claim slashed funds answers 0 without a transaction", async () => {
    const bidder = ROLES.bidder;
    const nonce = await h.publicClient.getTransactionCount({ address: addr(bidder) });
    expect(await claimSlashedFunds(chainClients(h.chain, key(bidder)), h.addresses.providerRegistry)).toBe(0n);
    expect(await h.publicClient.getTransactionCount({ address: addr(bidder) })).toBe(nonce);
  });
});
