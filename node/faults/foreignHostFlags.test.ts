import { describe, expect, test } from "bun:test";
import { ConfigError, parseDevnetArgs } from "../devnet/config.ts";

describe("--foreign-hosts", () => {
  test("with --netns --no-nodes: the only hosts, and --fault names them", () => {
    const cfg = parseDevnetArgs([
      "--netns",
      "--no-nodes",
      "--foreign-hosts",
      "bidder,provider-0,provider-1",
      "--fault",
      "bidder/provider-1:partition",
    ]);
    if (cfg === "help") throw new Error("help");
    expect({ nodes: cfg.nodes, network: cfg.network, foreignHosts: cfg.foreignHosts, faults: cfg.faults }).toEqual({
      nodes: false,
      network: "netns",
      foreignHosts: ["bidder", "provider-0", "provider-1"],
      faults: [{ hosts: ["bidder", "provider-1"], partition: true }],
    });
  });

  test("beside the devnet's own nodes: their hosts and the foreign ones, no name shared", () => {
    const cfg = parseDevnetArgs([
      "--netns",
      "--providers",
      "1",
      "--foreign-hosts",
      "up-bidder",
      "--fault",
      "bidder/up-bidder:partition",
    ]);
    if (cfg === "help") throw new Error("help");
    expect(cfg.faults).toEqual([{ hosts: ["bidder", "up-bidder"], partition: true }]);
    expect(() => parseDevnetArgs(["--netns", "--foreign-hosts", "provider-0"])).toThrow(
      new ConfigError(
        "--foreign-hosts: provider-0 is taken (the devnet's own hosts and pseudo-hosts: bidder, provider-0, provider-1, clients, root, settlement)",
      ),
    );
    expect(() => parseDevnetArgs(["--netns", "--no-nodes", "--foreign-hosts", "bidder,settlement"])).toThrow(
      "--foreign-hosts: settlement is taken",
    );
  });

  test("refused without netns, with a bad or repeated name, and --no-nodes with netns still needs them", () => {
    expect(() => parseDevnetArgs(["--network", "processes", "--foreign-hosts", "a"])).toThrow(
      "--foreign-hosts needs --network netns",
    );
    expect(() => parseDevnetArgs(["--netns", "--no-nodes", "--foreign-hosts", "a,Bad"])).toThrow(
      '--foreign-hosts: "Bad" is not a host name',
    );
    expect(() => parseDevnetArgs(["--netns", "--no-nodes", "--foreign-hosts", "a,a"])).toThrow(
      "--foreign-hosts names a twice",
    );
    expect(() => parseDevnetArgs(["--netns", "--no-nodes"])).toThrow(
      "--network netns runs nodes; it and --no-nodes contradict each other (--foreign-hosts makes hosts for nodes of your own)",
    );
  });
});
