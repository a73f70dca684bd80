/**
 * SendBid per protocol version, end to end in one process: the HTTP route, the bidder service, a real BidSender on
 * the in-process network and a provider that verifies each bid against the digest of the bid's version and commits.
 * v1.2 takes `bidOptions`, signs over them and echoes them in each commitment; v1.1 knows no such field.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { initCrypto } from "../../protocol/initCrypto.ts";
import type { ProtocolVersion } from "../../protocol/protocolVersion.ts";
import { rulesOf } from "../../protocol/rules.ts";
import { privateKeyToAddress } from "../../protocol/secp256k1.ts";
import { InProcessBidders } from "../../testing/inProcessBidders.ts";
import { TEST_KEYS } from "../../testing/testIdentities.ts";
import { bidderBidRoutes } from "./bids.ts";

const OPTIONS = { options: [{ positionConstraint: { anchor: "ANCHOR_TOP", basis: "BASIS_PERCENTILE", value: 10 } }] };

const bidders = new InProcessBidders();

beforeAll(async () => {
  await initCrypto();
});

afterAll(() => bidders.close());

function bidderApp(protocol: ProtocolVersion) {
  const { service, received } = bidders.bidder(rulesOf(protocol));
  return { app: bidderBidRoutes(service, rulesOf(protocol)), received };
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
    expect(received[0]!.bidder).toBe(privateKeyToAddress(TEST_KEYS.bidder));
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
