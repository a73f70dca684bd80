import { describe, expect, test } from "bun:test";
import { ConfigError, parseDevnetArgs } from "../devnet/config.ts";

describe("--fault", () => {
  test("with --netns: each flag a fault on the devnet's hosts", () => {
    const cfg = parseDevnetArgs([
      "--netns",
      "--providers",
      "3",
      "--fault",
      "bidder/provider-2:partition",
      "--fault",
      "provider-0:loss=5%,rate=1mbit",
    ]);
    if (cfg === "help") throw new Error("help");
    expect(cfg.faults).toEqual([
      { hosts: ["bidder", "provider-2"], partition: true },
      { hosts: ["provider-0"], lossPercent: 5, rateKbit: 1000 },
    ]);
    const plain = parseDevnetArgs(["--netns"]);
    expect(plain !== "help" && plain.faults).toBeUndefined();
  });

  test("refused without netns, or naming a host the devnet does not have, in one line", () => {
    expect(() => parseDevnetArgs(["--fault", "bidder/provider-0:partition"])).toThrow(
      new ConfigError("--fault needs --network netns (faults act between the hosts of its network namespaces)"),
    );
    expect(() => parseDevnetArgs(["--netns", "--fault", "bidder/provider-2:partition"])).toThrow(
      "--fault bidder/provider-2:partition: no host provider-2: the hosts are bidder, provider-0, provider-1, clients, root, settlement",
    );
    expect(() => parseDevnetArgs(["--netns", "--fault", "bidder:loss=x"])).toThrow(
      "--fault: loss=x is not a number (with %, ms, kbit or mbit)",
    );
  });
});
