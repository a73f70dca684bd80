/**
 * Steps of protocol v1.2's deposit manager (features/deposit-manager.feature): switching it on and off, target
 * deposits and their top-ups. A scenario that switches the manager on leaves it as it found it: the targets it set
 * go back to 0 and the manager is switched off again.
 */
import { expect } from "bun:test";
import { Given, Then, When } from "@cucumber/cucumber";
import { getAddress, type Hex } from "viem";
import { MevCommitError } from "../../lib/errors.ts";
import { bidderRegistryAbi } from "../support/abi.ts";
import { chainOf } from "../support/chain.ts";
import type { TargetDeposit } from "../support/clients/api.ts";
import { perScenario } from "../support/perScenario.ts";
import { settlementOf } from "../support/settlement.ts";
import type { ConformanceWorld } from "../support/world.ts";
import { providerAddressOf, providerDepositNotes } from "./providerDeposits.steps.ts";

export class DepositManagerCheckError extends MevCommitError {}

const OPEN_WAIT_MS = 60_000;

/** What the scenario changed on the bidder's deposit manager, put back at its end. */
const manager = perScenario("deposit manager scenario", (world) => {
  const state = {
    /** The scenario found the manager off (or switched it on): it is off again at the end. */
    switchedOn: false,
    targets: new Set<string>(),
    async teardown(): Promise<string[]> {
      const problems: string[] = [];
      const api = world.bidder.perProvider;
      if (state.targets.size) {
        const r = await api.setTargetDeposits([...state.targets].map((provider) => ({ provider, targetDeposit: "0" })));
        if (r.error) problems.push(`setting the scenario's targets back to 0: ${r.describe()}`);
      }
      if (state.switchedOn) {
        const now = await api.depositManagerStatus();
        if (now.error) problems.push(`reading the deposit manager's status: ${now.describe()}`);
        else if ((now.value as { enabled?: boolean }).enabled) {
          const r = await api.disableDepositManager();
          if (r.error) problems.push(`switching the deposit manager off again: ${r.describe()}`);
        }
      }
      return problems;
    },
  };
  return state;
});

async function status(world: ConformanceWorld): Promise<{ enabled?: boolean; targetDeposits?: TargetDeposit[] }> {
  const r = await world.bidder.perProvider.depositManagerStatus();
  if (r.error) throw new DepositManagerCheckError(`deposit_manager_status: ${r.describe()}`);
  return r.value as { enabled?: boolean; targetDeposits?: TargetDeposit[] };
}

function notedPlus(world: ConformanceWorld, n: number, plus: string): bigint {
  const noted = providerDepositNotes(world).deposits.get(n);
  if (noted === undefined) throw new DepositManagerCheckError(`the deposit toward provider ${n} was not noted`);
  return noted + BigInt(plus);
}

async function setTarget(world: ConformanceWorld, n: number, wei: bigint) {
  const provider = providerAddressOf(world, n);
  manager(world).targets.add(provider);
  return world.send(
    "POST",
    "bidder",
    "/v1/bidder/set_target_deposits",
    JSON.stringify({ targetDeposits: [{ provider, targetDeposit: wei.toString() }] }),
  );
}

// ------------------------------------------------------------------------------------------- Given

Given("the deposit manager is off", async function (this: ConformanceWorld) {
  // Whatever the scenario switches on from here is switched off at its end.
  manager(this).switchedOn = true;
  if (!(await status(this)).enabled) return;
  const r = await this.bidder.perProvider.disableDepositManager();
  if (r.error) throw new DepositManagerCheckError(`switching the deposit manager off: ${r.describe()}`);
});

Given("the deposit manager is on", async function (this: ConformanceWorld) {
  if ((await status(this)).enabled) return;
  const r = await this.bidder.perProvider.enableDepositManager();
  if (r.error) throw new DepositManagerCheckError(`switching the deposit manager on: ${r.describe()}`);
  manager(this).switchedOn = true;
});

Given(
  "the bidder has set a target deposit of the noted deposit plus {word} wei toward provider {int}",
  async function (this: ConformanceWorld, plus: string, n: number) {
    await setTarget(this, n, notedPlus(this, n, plus));
    const a = this.lastAnswer;
    if (a.error) throw new DepositManagerCheckError(`set_target_deposits: ${a.describe()}`);
  },
);

// ------------------------------------------------------------------------------------------- When

When(
  "the bidder sets a target deposit of the noted deposit plus {word} wei toward provider {int}",
  async function (this: ConformanceWorld, plus: string, n: number) {
    return setTarget(this, n, notedPlus(this, n, plus));
  },
);

// ------------------------------------------------------------------------------------------- Then

Then(/^the deposit manager status is (enabled|disabled)$/, async function (this: ConformanceWorld, want: string) {
  const s = await status(this);
  expect(s.enabled, JSON.stringify(s)).toBe(want === "enabled");
});

Then(
  "the deposit manager status lists the target of the noted deposit plus {word} wei toward provider {int}",
  async function (this: ConformanceWorld, plus: string, n: number) {
    const s = await status(this);
    const want = providerAddressOf(this, n);
    expect(
      (s.targetDeposits ?? []).filter((t) => t.provider === want),
      `targetDeposits of provider ${n} (EIP-55) in ${JSON.stringify(s)}`,
    ).toEqual([{ provider: want, targetDeposit: notedPlus(this, n, plus).toString() }]);
  },
);

Then(
  // One capture group per argument: cucumber passes only the outermost groups, and a step function with one
  // parameter more than its arguments is given a callback in the last.
  /^the answer sets the target toward provider (\d+) bare and names (?:provider (\d+)|no provider) as topped up(?:, EIP-55)?$/,
  function (this: ConformanceWorld, p: string, topped: string | undefined) {
    const a = this.lastAnswer;
    if (a.error) throw new DepositManagerCheckError(`set_target_deposits: ${a.describe()}`);
    const v = a.value as { successfullySetDeposits?: TargetDeposit[]; successfullyToppedUpProviders?: string[] };
    const provider = providerAddressOf(this, Number(p));
    expect(
      (v.successfullySetDeposits ?? []).map((t) => t.provider),
      `successfullySetDeposits (bare hex) in ${a.describe()}`,
    ).toEqual([provider.toLowerCase().slice(2)]);
    expect(v.successfullyToppedUpProviders ?? [], `successfullyToppedUpProviders in ${a.describe()}`).toEqual(
      topped ? [getAddress(providerAddressOf(this, Number(topped)))] : [],
    );
  },
);

Then("BidderRegistry soon records the commitment's bid as opened", async function (this: ConformanceWorld) {
  const c = settlementOf(this).commitment();
  const chain = chainOf(this.target);
  const deadline = performance.now() + OPEN_WAIT_MS;
  for (;;) {
    const [, , state] = await chain.settlement.readContract({
      address: this.target.contracts.bidderRegistry as Hex,
      abi: bidderRegistryAbi,
      functionName: "bidPayment",
      args: [c.digest],
    });
    // 1: PreConfirmed (opened, escrowed), 2: Settled (upstream-head-delta §2.2).
    if (state >= 1) return;
    if (performance.now() > deadline)
      throw new DepositManagerCheckError(
        `BidderRegistry.bidPayment(${c.digest}) is still state ${state} ${OPEN_WAIT_MS} ms after the block was mined`,
      );
    await new Promise((r) => setTimeout(r, 500));
  }
});
