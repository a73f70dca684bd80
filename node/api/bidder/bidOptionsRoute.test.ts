/**
 * SendBid per protocol version, end to end in one process: the HTTP route, the bidder service, a real BidSender on
 * the in-process network and a provider that verifies each bid against the digest of the bid's version and commits.
 * v1.2 takes `bidOptions`, signs over them and echoes them in each commitment; v1.1 knows no such field.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Address } from "viem";
import { BidSender } from "../../bidder/bids/bidSender.ts";
import { InProcessNetwork } from "../../network/network.ts";
import { verifyBid } from "../../protocol/bidSigning.ts";
import { publicKeyOf } from "../../protocol/bn254.ts";
import { signCommitment } from "../../protocol/commitmentSigning.ts";
import { protocolDomains } from "../../protocol/digest.ts";
import { initCrypto } from "../../protocol/initCrypto.ts";
import type { ProtocolVersion } from "../../protocol/protocolVersion.ts";
import { privateKeyToAddress } from "../../protocol/secp256k1.ts";
import type { SignedBid } from "../../protocol/types.ts";
import { BidderService } from "../../services/bidderService.ts";
import { NodeStore } from "../../store/db.ts";
import { CommitmentStore } from "../../tracker/commitmentStore.ts";
import { bidderBidRoutes } from "./bids.ts";

const BIDDER_KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const PROVIDER_KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";
const NIKE = 55555n;
const domains = protocolDomains(31337n, "0x5FbDB2315678afecb367f032d93F642f64180aa3");
const OPTIONS = { options: [{ positionConstraint: { anchor: "ANCHOR_TOP", basis: "BASIS_PERCENTILE", value: 10 } }] };

const dirs: string[] = [];
const stores: NodeStore[] = [];

beforeAll(async () => {
  await initCrypto();
});

afterAll(() => {
  for (const s of stores) s.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function bidderApp(protocol: ProtocolVersion) {
  const dir = mkdtempSync(join(tmpdir(), "bid-options-"));
  dirs.push(dir);
  const store = new NodeStore(join(dir, "bidder.db"));
  stores.push(store);
  const network = new InProcessNetwork();
  const received: { bid: SignedBid; bidder: Address }[] = [];
  network.connectProvider({
    address: privateKeyToAddress(PROVIDER_KEY),
    nikePublicKey: publicKeyOf(NIKE),
    handleBid: async (signed) => {
      received.push({ bid: signed, bidder: verifyBid(signed, domains.bid) });
      const c = signCommitment({
        signedBid: signed,
        providerPrivateKey: PROVIDER_KEY,
        providerNikeSecret: NIKE,
        commitmentDomain: domains.commitment,
        dispatchTimestamp: 42n,
      });
      return { digest: c.digest, signature: c.signature, dispatchTimestamp: 42n };
    },
  });
  const commitments = new CommitmentStore(store);
  const sender = new BidSender({
    privateKey: BIDDER_KEY,
    address: privateKeyToAddress(BIDDER_KEY),
    domains,
    network,
    commitments,
    timeoutMs: 5_000,
  });
  const service = new BidderService({
    sender,
    deposits: undefined as never, // SendBid touches no deposit
    commitments: () => undefined as never,
    claimSlashedFunds: async () => 0n,
  });
  return { app: bidderBidRoutes(service, protocol), received };
}

async function sendBid(app: ReturnType<typeof bidderApp>["app"], body: object) {
  const res = await app.handle(
    new Request("http://node/v1/bidder/bid", { method: "POST", body: JSON.stringify(body) }),
  );
  const text = await res.text();
  return text
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { result: Record<string, unknown> });
}

const bid = {
  txHashes: ["ab".repeat(32)],
  amount: "1000",
  blockNumber: "9",
  decayStartTimestamp: "1",
  decayEndTimestamp: "2",
};

describe("SendBid with bid options", () => {
  test("v1.2: the options are signed, reach the provider as their binary form, and come back in the commitment", async () => {
    const { app, received } = bidderApp("v1.2");
    const lines = await sendBid(app, { ...bid, bidOptions: OPTIONS });
    expect(lines.length).toBe(1);
    expect(lines[0]!.result.bidOptions).toEqual({
      options: [{ positionConstraint: { anchor: "ANCHOR_TOP", basis: "BASIS_PERCENTILE", value: 10 } }],
    });
    expect(lines[0]!.result.slashAmount).toBe("1000");
    expect(Buffer.from(received[0]!.bid.bid.bidOptions!).toString("hex")).toBe("0a080a0608011001180a");
    expect(received[0]!.bidder).toBe(privateKeyToAddress(BIDDER_KEY));
  });

  test("v1.2 without options: null in the commitment, empty options under the v1.2 digest", async () => {
    const { app, received } = bidderApp("v1.2");
    const lines = await sendBid(app, bid);
    expect(lines[0]!.result.bidOptions).toBeNull();
    expect(received[0]!.bid.bid.bidOptions).toEqual(new Uint8Array(0));
  });

  test("v1.1: no bidOptions anywhere, the slash amount stays 0", async () => {
    const { app, received } = bidderApp("v1.1");
    const lines = await sendBid(app, { ...bid, bidOptions: OPTIONS });
    expect(lines.length).toBe(1);
    expect("bidOptions" in lines[0]!.result).toBe(false);
    expect(lines[0]!.result.slashAmount).toBe("0");
    expect(received[0]!.bid.bid.bidOptions).toBeUndefined();
  });
});
