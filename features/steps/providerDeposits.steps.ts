/**
 * Steps of protocol v1.2's deposits per provider, withdrawal requests and the deposit manager
 * (features/deposits-per-provider.feature, features/deposit-manager.feature). Requests are written as the gateway's
 * (`the bidder is sent POST "…"`) and run over either transport; `{provider N}` in a path, a body or an expected
 * value is provider N's EIP-55 address, `{provider N bare}` the same in lower case without 0x.
 */
import { expect } from "bun:test";
import { Given, Then, When } from "@cucumber/cucumber";
import { type Address, getAddress } from "viem";
import { MevCommitError } from "../../lib/errors.ts";
import { chainOf } from "../support/chain.ts";
import { SKIPPED_PREFIX } from "../support/health.ts";
import { perScenario } from "../support/perScenario.ts";
import type { ConformanceWorld } from "../support/world.ts";

export class ProviderDepositCheckError extends MevCommitError {}

/** What a scenario noted: deposits toward providers (by 1-based index). */
const notes = perScenario("per-provider deposit scenario", () => ({
  deposits: new Map<number, bigint>(),
  async teardown() {},
}));

const DECIMAL = /^(0|[1-9][0-9]*)$/;
/** How long the suite waits past a withdrawal period for the settlement chain's clock. */
const PERIOD_SLACK_MS = 2_000;

function providerAddressOf(world: ConformanceWorld, n: number): Address {
  const a = world.target.providerAddresses[n - 1];
  if (!a)
    throw new ProviderDepositCheckError(`the target has ${world.target.providerAddresses.length} providers, not ${n}`);
  return getAddress(a);
}

const bare = (a: string) => a.toLowerCase().replace(/^0x/, "");

export function substituteProviders(world: ConformanceWorld, text: string): string {
  return text.replace(/\{provider (\d+)( bare)?\}/g, (_, n: string, b: string | undefined) => {
    const a = providerAddressOf(world, Number(n));
    return b ? bare(a) : a;
  });
}

async function sendToBidder(world: ConformanceWorld, method: string, path: string, body?: string) {
  return world.send(
    method,
    "bidder",
    substituteProviders(world, path),
    body === undefined ? undefined : substituteProviders(world, body),
  );
}

function answerValue(world: ConformanceWorld): Record<string, unknown> {
  const a = world.lastAnswer;
  if (a.error) throw new ProviderDepositCheckError(`the call failed: ${a.describe()}`);
  return a.value as Record<string, unknown>;
}

async function depositOnChain(world: ConformanceWorld, n: number): Promise<bigint> {
  return chainOf(world.target).providerDeposit(providerAddressOf(world, n));
}

async function withdrawalRequested(world: ConformanceWorld, n: number): Promise<boolean> {
  return (await chainOf(world.target).readV12("withdrawalRequestExists", [
    world.target.bidderAddress,
    providerAddressOf(world, n),
  ])) as boolean;
}

async function depositToward(world: ConformanceWorld, wei: bigint, n: number): Promise<void> {
  const r = await world.bidder.perProvider.deposit(wei.toString(), providerAddressOf(world, n));
  if (r.error) throw new ProviderDepositCheckError(`deposit of ${wei} wei toward provider ${n}: ${r.describe()}`);
}

async function requestWithdrawal(world: ConformanceWorld, n: number): Promise<void> {
  const r = await world.bidder.perProvider.requestWithdrawals([providerAddressOf(world, n)]);
  if (r.error) throw new ProviderDepositCheckError(`withdrawal request toward provider ${n}: ${r.describe()}`);
}

/**
 * The withdrawal scenarios take a provider the other scenarios do not bid with (a pending withdrawal request makes
 * a provider refuse the bidder's bids): a target with fewer providers skips them, as it skips the unstake scenario.
 */
function lacksProvider(world: ConformanceWorld, n: number): "skipped" | undefined {
  if (world.target.providerAddresses.length >= n) return undefined;
  world.attach(
    `${SKIPPED_PREFIX}the target has ${world.target.providerAddresses.length} providers; provider ${n} is the one the withdrawal scenarios take`,
    "text/plain",
  );
  return "skipped";
}

// ------------------------------------------------------------------------------------------- Given

Given("the bidder's deposit toward provider {int} is noted", async function (this: ConformanceWorld, n: number) {
  notes(this).deposits.set(n, await depositOnChain(this, n));
});

Given(
  "the bidder's deposits toward providers {int} and {int} are noted",
  async function (this: ConformanceWorld, a: number, b: number) {
    for (const n of [a, b]) notes(this).deposits.set(n, await depositOnChain(this, n));
  },
);

Given(
  "the bidder has deposited {word} wei toward provider {int}",
  async function (this: ConformanceWorld, wei: string, n: number) {
    await depositToward(this, BigInt(wei), n);
  },
);

Given(
  "the bidder holds a deposit toward provider {int} and no withdrawal request",
  async function (this: ConformanceWorld, n: number) {
    if (lacksProvider(this, n)) return "skipped";
    if (await withdrawalRequested(this, n)) {
      // An earlier run's request: withdrawn when its period has passed, else the scenario cannot start.
      const r = await this.bidder.perProvider.withdraw([providerAddressOf(this, n)]);
      if (r.error) {
        this.attach(
          `${SKIPPED_PREFIX}the bidder has a withdrawal request toward provider ${n} whose period has not passed (${r.describe()})`,
          "text/plain",
        );
        return "skipped";
      }
    }
    await depositToward(this, 1000n, n);
    return undefined;
  },
);

Given(
  "the bidder holds a deposit toward provider {int} with a withdrawal request",
  async function (this: ConformanceWorld, n: number) {
    if (lacksProvider(this, n)) return "skipped";
    if (await withdrawalRequested(this, n)) return undefined;
    await depositToward(this, 1000n, n);
    await requestWithdrawal(this, n);
    return undefined;
  },
);

Given("the target's withdrawal period is at most {int} ms", async function (this: ConformanceWorld, max: number) {
  const period = (await chainOf(this.target).readV12("bidderWithdrawalPeriodMs")) as bigint;
  if (period > BigInt(max)) {
    this.attach(
      `${SKIPPED_PREFIX}the target's bidder withdrawal period is ${period} ms, longer than the ${max} ms the suite waits`,
      "text/plain",
    );
    return "skipped";
  }
  return undefined;
});

// ------------------------------------------------------------------------------------------- When

When(
  /^the bidder is sent (GET|POST) "([^"]*)"(?: with the body '(.*)')?$/,
  async function (this: ConformanceWorld, method: string, path: string, body?: string) {
    return sendToBidder(this, method, path, body);
  },
);

When("the bidder requests withdrawals from provider {int}", async function (this: ConformanceWorld, n: number) {
  return sendToBidder(
    this,
    "POST",
    "/v1/bidder/request_withdrawals",
    JSON.stringify({ providers: [providerAddressOf(this, n)] }),
  );
});

When("the bidder withdraws from provider {int}", async function (this: ConformanceWorld, n: number) {
  return sendToBidder(this, "POST", "/v1/bidder/withdraw", JSON.stringify({ providers: [providerAddressOf(this, n)] }));
});

// The contract compares the request's block timestamp plus the period with the withdrawing block's (strictly less;
// upstream-head-delta §2.2): the suite waits the period out on the wall clock, which the chain's blocks follow.
When("the withdrawal period has passed on the settlement chain", async function (this: ConformanceWorld) {
  const period = (await chainOf(this.target).readV12("bidderWithdrawalPeriodMs")) as bigint;
  await new Promise((r) => setTimeout(r, Number(period) + PERIOD_SLACK_MS));
});

// ------------------------------------------------------------------------------------------- Then

Then(/^the answer is exactly (\{.*\})$/, function (this: ConformanceWorld, json: string) {
  expect(answerValue(this), this.lastAnswer.describe()).toEqual(JSON.parse(substituteProviders(this, json)));
});

Then(
  /^the request fails with code (\d+) and a message starting with "(.*)"$/,
  function (this: ConformanceWorld, code: string, prefix: string) {
    const a = this.lastAnswer;
    expect(a.error?.code, a.describe()).toBe(Number(code));
    expect(a.error?.message ?? "", a.describe()).toStartWith(prefix);
  },
);

Then(
  "BidderRegistry holds the noted deposit toward provider {int} plus {word} wei",
  async function (this: ConformanceWorld, n: number, plus: string) {
    const noted = notes(this).deposits.get(n);
    if (noted === undefined) throw new ProviderDepositCheckError(`the deposit toward provider ${n} was not noted`);
    expect(await depositOnChain(this, n), `BidderRegistry.getDeposit(bidder, provider ${n})`).toBe(
      noted + BigInt(plus),
    );
  },
);

Then(
  "the answer's provider is {string} and its amount is BidderRegistry's deposit toward provider {int}",
  async function (this: ConformanceWorld, provider: string, n: number) {
    const v = answerValue(this);
    expect(v, this.lastAnswer.describe()).toEqual({
      provider: substituteProviders(this, provider),
      amount: (await depositOnChain(this, n)).toString(),
    });
  },
);

Then(
  "the answer lists, in any order, BidderRegistry's deposits toward providers {int} and {int} with their EIP-55 addresses",
  async function (this: ConformanceWorld, a: number, b: number) {
    const v = answerValue(this) as { deposits?: { provider?: string; amount?: string }[] };
    const deposits = v.deposits ?? [];
    for (const d of deposits) {
      expect(d.provider, "every provider of get_all_deposits is EIP-55 with 0x").toBe(getAddress(String(d.provider)));
      expect(d.amount, "every amount of get_all_deposits is a positive decimal string").toMatch(/^[1-9][0-9]*$/);
    }
    for (const n of [a, b]) {
      const want = providerAddressOf(this, n);
      const mine = deposits.filter((d) => d.provider === want);
      expect(mine, `entries for provider ${n} (${want}) in ${this.lastAnswer.describe()}`).toEqual([
        { provider: want, amount: (await depositOnChain(this, n)).toString() },
      ]);
    }
  },
);

Then("the answer's bidderBalance is a decimal string of wei", function (this: ConformanceWorld) {
  expect(answerValue(this).bidderBalance, this.lastAnswer.describe()).toMatch(DECIMAL);
});

Then(
  "the answer's validProviders include providers {int} and {int}, in any order, each as an EIP-55 address",
  function (this: ConformanceWorld, a: number, b: number) {
    const list = (answerValue(this).validProviders ?? []) as string[];
    for (const p of list) expect(p, "every valid provider is EIP-55 with 0x").toBe(getAddress(p));
    for (const n of [a, b]) expect(list, this.lastAnswer.describe()).toContain(providerAddressOf(this, n));
  },
);

Then(
  /^the answer lists provider (\d+) bare with (BidderRegistry's deposit|the noted deposit) toward provider (\d+)$/,
  async function (this: ConformanceWorld, p: string, which: string, n: string) {
    const amount =
      which === "the noted deposit" ? notes(this).deposits.get(Number(n)) : await depositOnChain(this, Number(n));
    if (amount === undefined) throw new ProviderDepositCheckError(`the deposit toward provider ${n} was not noted`);
    const v = answerValue(this);
    expect(v, this.lastAnswer.describe()).toEqual({
      providers: [bare(providerAddressOf(this, Number(p)))],
      amounts: [amount.toString()],
    });
  },
);

Then(
  "BidderRegistry records a withdrawal request of the bidder toward provider {int}",
  async function (this: ConformanceWorld, n: number) {
    expect(await withdrawalRequested(this, n), `BidderRegistry.withdrawalRequestExists(bidder, provider ${n})`).toBe(
      true,
    );
  },
);

Then(
  "BidderRegistry holds nothing toward provider {int} and no withdrawal request",
  async function (this: ConformanceWorld, n: number) {
    expect(await depositOnChain(this, n), `BidderRegistry.getDeposit(bidder, provider ${n})`).toBe(0n);
    expect(await withdrawalRequested(this, n), `BidderRegistry.withdrawalRequestExists(bidder, provider ${n})`).toBe(
      false,
    );
  },
);

export { notes as providerDepositNotes, providerAddressOf };
