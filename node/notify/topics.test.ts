import { describe, expect, test } from "bun:test";
import { rulesOf } from "../protocol/rules.ts";
import { Notifier } from "./notifier.ts";
import { v12Notices } from "./sources.ts";
import { TOPICS, topicsOf, validateTopics } from "./topics.ts";

const V12 = ["other_provider_won_block", "transaction_settled", "transaction_payment"];

describe("topics per protocol version", () => {
  test("v1.1 accepts the pinned ten and refuses the v1.2 topics", () => {
    expect(topicsOf(rulesOf("v1.1"))).toEqual([...TOPICS]);
    for (const t of V12)
      expect(() => validateTopics(["peer_connected", t], rulesOf("v1.1"))).toThrow(`invalid topic: ${t}`);
    expect(() => validateTopics(V12, rulesOf("v1.1"))).toThrow("invalid topic: other_provider_won_block");
  });

  test("v1.2 accepts the pinned ten and its three", () => {
    expect(topicsOf(rulesOf("v1.2")) as readonly string[]).toEqual([...TOPICS, ...V12]);
    expect(validateTopics(V12, rulesOf("v1.2")) as string[]).toEqual(V12);
    expect(() => validateTopics(["nope"], rulesOf("v1.2"))).toThrow("invalid topic: nope");
  });
});

async function published(version: "v1.1" | "v1.2") {
  const n = new Notifier();
  const s = n.subscribe(V12 as never);
  const notices = v12Notices(n, rulesOf(version));
  notices.otherProviderWonBlock("AB12", "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", 5n);
  notices.otherProviderWonBlock("cd34");
  notices.transactionSettled("aa,bb", true, "0x70997970C51812dc3A010C7d01b50e0d17dc79C8");
  notices.transactionPayment("aa,bb", 7n, undefined);
  notices.transactionPayment("aa,bb", undefined, 9n);
  s.close();
  const got = [];
  for await (const x of s.notifications()) got.push(x);
  return got;
}

describe("v1.2 notices", () => {
  test("published on a v1.2 node with upstream's payloads", async () => {
    const provider = "70997970c51812dc3a010c7d01b50e0d17dc79c8";
    expect(await published("v1.2")).toEqual([
      { topic: "other_provider_won_block", value: { commitmentDigest: "ab12", bidder: provider, bidAmount: "5" } },
      { topic: "other_provider_won_block", value: { commitmentDigest: "cd34" } },
      { topic: "transaction_settled", value: { transaction_hashes: "aa,bb", is_slashed: true, provider } },
      { topic: "transaction_payment", value: { transaction_hashes: "aa,bb", payment: "7", refund: "" } },
      { topic: "transaction_payment", value: { transaction_hashes: "aa,bb", payment: "", refund: "9" } },
    ]);
  });

  test("never published on a v1.1 node", async () => {
    expect(await published("v1.1")).toEqual([]);
  });
});
