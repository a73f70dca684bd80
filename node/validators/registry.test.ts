/**
 * Against a real Anvil L1 with manual mining: the opt-in registry contract, and the validator service driven by
 * the L1 block driver across an epoch boundary.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Address, createPublicClient, decodeEventLog, type Hex, http, zeroAddress } from "viem";
import { devAccount, ROLES } from "../chain/accounts.ts";
import { type AnvilChain, startAnvil } from "../chain/anvil.ts";
import { validatorOptInRouterAbi, validatorOptInRouterContract } from "../chain/contracts.ts";
import { deployValidatorRegistry } from "../chain/deploy.ts";
import { L1BlockDriver } from "../l1/blockDriver.ts";
import { setLogSink } from "../util/log.ts";
import { freePort } from "../util/ports.ts";
import { BeaconSchedule } from "./beaconSchedule.ts";
import { L1ValidatorChain, optInValidators, optOutValidators } from "./optInRegistry.ts";
import { ValidatorService, type ValidatorTopic } from "./validatorService.ts";

setLogSink(() => {});

const CHAIN_ID = 31337;
const OPERATOR = devAccount(18); // the devnet's validator operator
const STRANGER = devAccount(17);
const OWNER = devAccount(ROLES.owner);

let anvil: AnvilChain;
let driver: L1BlockDriver;
let registry: Address;
const client = () => createPublicClient({ transport: http(anvil.rpcUrl), cacheTime: 0 });
const key = (i: number): Hex => `0x${i.toString(16).padStart(2, "0").repeat(48)}`;

beforeAll(async () => {
  anvil = await startAnvil({ name: "validators", port: await freePort(), chainId: CHAIN_ID, mining: "manual" });
  driver = new L1BlockDriver(anvil.rpcUrl, []);
  // Manual mining: submit the deployment, then mine it the way the devnet does (the driver's first block).
  registry = await deployValidatorRegistry({
    rpcUrl: anvil.rpcUrl,
    chainId: CHAIN_ID,
    owner: OWNER.privateKey,
    wait: false,
  });
  await driver.mine(1);
}, 120_000);

afterAll(async () => {
  await driver?.drain();
  await anvil?.stop();
});

/** Sends through a helper, mines one block, returns the receipt's logs decoded. */
async function mined(send: Promise<Hex>) {
  const hash = await send;
  await driver.mine(1);
  const receipt = await client().getTransactionReceipt({ hash });
  expect(receipt.status).toBe("success");
  return receipt.logs.map((l) => decodeEventLog({ abi: validatorOptInRouterAbi, data: l.data, topics: l.topics }));
}

describe("ValidatorOptInRouter", () => {
  test("deployed at the announced address, upstream's router getters", async () => {
    const c = validatorOptInRouterContract(registry, client());
    expect(await c.read.owner()).toBe(OWNER.address);
    expect(await c.read.vanillaRegistry()).toBe(registry);
    expect(await c.read.mevCommitAVS()).toBe(zeroAddress);
    expect(await c.read.mevCommitMiddleware()).toBe(zeroAddress);
    expect(await c.read.BLS_PUBKEY_LENGTH()).toBe(48n);
  });

  test("opt in and out by key; areValidatorsOptedIn answers in order, with upstream's tuple", async () => {
    const c = validatorOptInRouterContract(registry, client());
    const events = await mined(
      optInValidators({ rpcUrl: anvil.rpcUrl, registry, privateKey: OPERATOR.privateKey, keys: [key(1), key(2)] }),
    );
    expect(events).toEqual([
      { eventName: "ValidatorOptedIn", args: { optInAccount: OPERATOR.address, valBLSPubKey: key(1) } },
      { eventName: "ValidatorOptedIn", args: { optInAccount: OPERATOR.address, valBLSPubKey: key(2) } },
    ]);
    expect(await c.read.areValidatorsOptedIn([[key(2), key(3), key(1), "0x1234"]])).toEqual([
      { isVanillaOptedIn: true, isAvsOptedIn: false, isMiddlewareOptedIn: false },
      { isVanillaOptedIn: false, isAvsOptedIn: false, isMiddlewareOptedIn: false },
      { isVanillaOptedIn: true, isAvsOptedIn: false, isMiddlewareOptedIn: false },
      { isVanillaOptedIn: false, isAvsOptedIn: false, isMiddlewareOptedIn: false },
    ]);
    expect(await c.read.getOptInAccount([key(1)])).toBe(OPERATOR.address);
    expect(await c.read.optedInCount()).toBe(2n);

    // Refusals carry their reason (raised while estimating, before anything is sent).
    const send = (fn: typeof optInValidators, from: Hex, keys: Hex[]) =>
      fn({ rpcUrl: anvil.rpcUrl, registry, privateKey: from, keys });
    await expect(send(optInValidators, STRANGER.privateKey, [key(3), key(1)])).rejects.toThrow(
      `optIn: ValidatorAlreadyOptedIn(valBLSPubKey=${key(1)})`,
    );
    await expect(send(optInValidators, OPERATOR.privateKey, ["0x123456"])).rejects.toThrow(
      "optIn: InvalidBLSPubKeyLength(expected=48, actual=3)",
    );
    await expect(send(optOutValidators, STRANGER.privateKey, [key(1)])).rejects.toThrow(
      `optOut: SenderIsNotOptInAccount(sender=${STRANGER.address}, optInAccount=${OPERATOR.address})`,
    );
    await expect(send(optOutValidators, OPERATOR.privateKey, [key(3)])).rejects.toThrow(
      `optOut: ValidatorNotOptedIn(valBLSPubKey=${key(3)})`,
    );

    // The opt-in account or the owner may opt a key out.
    expect(await mined(send(optOutValidators, OWNER.privateKey, [key(1)]))).toEqual([
      {
        eventName: "ValidatorOptedOut",
        args: { optInAccount: OPERATOR.address, valBLSPubKey: key(1), sender: OWNER.address },
      },
    ]);
    await mined(send(optOutValidators, OPERATOR.privateKey, [key(2)]));
    expect(await c.read.areValidatorsOptedIn([[key(1), key(2)]])).toEqual([
      { isVanillaOptedIn: false, isAvsOptedIn: false, isMiddlewareOptedIn: false },
      { isVanillaOptedIn: false, isAvsOptedIn: false, isMiddlewareOptedIn: false },
    ]);
    expect(await c.read.optedInCount()).toBe(0n);
  });

  test("L1ValidatorChain reads the registry; an address without code reads as nobody opted in", async () => {
    const chain = new L1ValidatorChain({ rpcUrl: anvil.rpcUrl, registry });
    expect(await chain.areValidatorsOptedIn([])).toEqual([]);
    expect(await chain.areValidatorsOptedIn([key(9)])).toEqual([false]);
    const head = await chain.blockNumber();
    expect(await chain.blockTimestamp(head)).toBeGreaterThan(0n);
    expect(await chain.blockTimestamp(head + 5n)).toBeUndefined();
    const empty = new L1ValidatorChain({ rpcUrl: anvil.rpcUrl, registry: devAccount(16).address });
    expect(await empty.areValidatorsOptedIn([key(9), key(8)])).toEqual([false, false]);
  });
});

describe("ValidatorService on the L1 block driver", () => {
  test("opt in an upcoming proposer, mine across an epoch boundary: notifications and getValidators", async () => {
    const schedule = new BeaconSchedule();
    const published: { topic: ValidatorTopic; value: Record<string, unknown> }[] = [];
    const service = new ValidatorService({
      chain: new L1ValidatorChain({ rpcUrl: anvil.rpcUrl, registry }),
      schedule,
      slotSeconds: 1,
      publish: (topic, value) => published.push({ topic, value }),
    });
    driver.onAfterMine(service.onL1Block);
    await service.start();
    published.length = 0; // start() is covered by the unit tests

    const head = await driver.blockNumber();
    const epoch = head / 32n + 1n;
    const boundary = epoch * 32n; // first slot of the next epoch
    const proposer = schedule.proposerOf(boundary).blsKey;
    const soon = schedule.proposerOf(head + 3n).blsKey;
    const optedIn = [...new Set([proposer, soon])];
    await optInValidators({ rpcUrl: anvil.rpcUrl, registry, privateKey: OPERATOR.privateKey, keys: optedIn });

    const t = performance.now();
    await driver.mine(Number(boundary - head)); // up to and including block `boundary`
    console.info(
      `[validators] ${boundary - head} blocks with the validator hook in ${Math.round(performance.now() - t)} ms`,
    );

    const slotsOf = (k: Hex) =>
      [...Array(Number(boundary - head)).keys()]
        .map((i) => head + 2n + BigInt(i))
        .filter((s) => s <= boundary + 1n && schedule.proposerOf(s).blsKey === k);
    // Every slot from head+2 (after the opt-in block) to boundary+1 whose proposer is opted in, in slot order.
    const expectedSlots = [...new Set([...slotsOf(proposer), ...slotsOf(soon)])].sort((a, b) => Number(a - b));
    const slotNotes = published.filter((p) => p.topic === "validator_opted_in");
    expect(slotNotes.map((p) => p.value)).toEqual(
      expectedSlots.map((s) => ({ epoch: Number(s / 32n), slot: Number(s), bls_key: schedule.proposerOf(s).blsKey })),
    );
    expect(slotNotes.map((p) => p.value.slot)).toContain(Number(head + 3n));
    expect(slotNotes.map((p) => p.value.slot)).toContain(Number(boundary));

    const epochNotes = published.filter((p) => p.topic === "epoch_validators_opted_in");
    expect(epochNotes).toHaveLength(1);
    const note = epochNotes[0]!.value;
    expect(note.epoch).toBe(Number(epoch));
    const before = await client().getBlock({ blockNumber: boundary - 1n });
    expect(note.epoch_start_time).toBe(Number(before.timestamp) + 1); // announced at block boundary-1: its time + 1 slot
    const slots = note.slots as { slot: number; bls_key: string; opted_in: boolean }[];
    expect(slots.map((s) => s.slot)).toEqual(Array.from({ length: 32 }, (_, i) => Number(boundary) + i));
    for (const s of slots) expect(s.opted_in).toBe(optedIn.includes(s.bls_key as Hex));
    // The epoch list came before the boundary slot's own notification.
    expect(published.indexOf(epochNotes[0]!)).toBeLessThan(
      published.findIndex((p) => p.value.slot === Number(boundary)),
    );

    const m = await service.getValidators(epoch);
    expect(m.size).toBe(32);
    expect(m.get(boundary)).toEqual({ blsKey: proposer, optedIn: true });
    expect([...m.values()].filter((s) => s.optedIn).length).toBe(slots.filter((s) => s.opted_in).length);
    expect(await service.currentEpoch()).toBe(epoch);
    expect(await service.epochStartTime(epoch)).toBe((await client().getBlock({ blockNumber: boundary })).timestamp);
  }, 20_000);
});
