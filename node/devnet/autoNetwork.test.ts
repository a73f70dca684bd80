/** `--network auto`: what it picks for a core count, and what the command line makes of it (pure code). */
import { describe, expect, test } from "bun:test";
import { availableCores, chooseNetwork } from "./autoNetwork.ts";
import { ConfigError, DEFAULTS, type DevnetConfig, parseDevnetArgs } from "./config.ts";

const parse = (argv: string[], cores: number) => parseDevnetArgs(argv, DEFAULTS, () => cores) as DevnetConfig;

describe("chooseNetwork", () => {
  test("below 8 cores: every node on one event loop", () => {
    for (const cores of [1, 2, 4, 7])
      expect(chooseNetwork(cores)).toMatchObject({ network: "libp2p", cryptoWorkers: 0 });
    expect(chooseNetwork(2).reason).toBe("2 cores (a process per node pays from 8): every node on one event loop");
  });

  test("from 8 cores: a process per node with a quarter of the cores as crypto workers, at most 4", () => {
    expect(chooseNetwork(8)).toEqual({
      network: "processes",
      cryptoWorkers: 2,
      reason: "8 cores: a process per node, 2 crypto workers each",
    });
    expect(chooseNetwork(16)).toMatchObject({ network: "processes", cryptoWorkers: 4 });
    expect(chooseNetwork(16).reason).toBe("16 cores: a process per node, 4 crypto workers each");
    expect(chooseNetwork(64).cryptoWorkers).toBe(4);
  });

  test("given crypto workers are kept; a flag a node process cannot take keeps the one loop", () => {
    expect(chooseNetwork(16, { cryptoWorkers: 1 })).toMatchObject({ network: "processes", cryptoWorkers: 1 });
    expect(chooseNetwork(2, { cryptoWorkers: 3 })).toMatchObject({ network: "libp2p", cryptoWorkers: 3 });
    expect(chooseNetwork(16, { blocker: "--no-nodes" })).toEqual({
      network: "libp2p",
      cryptoWorkers: 0,
      reason: "16 cores, but --no-nodes: every node on one event loop",
    });
  });
});

describe("npm run node without --network is --network auto", () => {
  test("on 2 cores: today's libp2p devnet, no crypto workers", () => {
    const c = parse([], 2);
    expect([c.network, c.cryptoWorkers]).toEqual(["libp2p", 0]);
    expect(c.networkChoice).toContain("2 cores");
    expect(parse(["--network", "auto"], 2).network).toBe("libp2p");
  });

  test("on 16 cores: processes with 4 crypto workers; --crypto-workers still decides the workers", () => {
    const c = parse([], 16);
    expect([c.network, c.cryptoWorkers, c.networkChoice]).toEqual([
      "processes",
      4,
      "16 cores: a process per node, 4 crypto workers each",
    ]);
    expect(parse(["--crypto-workers", "0"], 16).cryptoWorkers).toBe(0);
  });

  test("a --network flag overrides, whatever the cores", () => {
    for (const network of ["libp2p", "in-process", "processes"] as const) {
      const c = parse(["--network", network], 16);
      expect([c.network, c.cryptoWorkers, c.networkChoice]).toEqual([network, 0, undefined]);
      expect(parse(["--network", network], 2).network).toBe(network);
    }
    expect(parse(["--netns"], 2).network).toBe("netns");
  });

  test("flags a node process cannot take keep the one loop on 16 cores", () => {
    expect(parse(["--rpc-tls"], 16).network).toBe("libp2p");
    expect(parse(["--no-nodes"], 16).network).toBe("libp2p");
    expect(parse(["--rpc-tls"], 16).networkChoice).toContain("--rpc-tls");
    // More bidders still need the in-process network, named.
    expect(() => parse(["--bidders", "2"], 16)).toThrow("needs --network in-process");
  });

  test("a bad --network or DEVNET_CORES is a ConfigError", () => {
    expect(() => parse(["--network", "threads"], 16)).toThrow(ConfigError);
    expect(() => parse(["--network", "threads"], 16)).toThrow("auto, libp2p, in-process, processes or netns");
    expect(() => parseDevnetArgs([], DEFAULTS, () => availableCores({ DEVNET_CORES: "many" }))).toThrow(ConfigError);
    expect(availableCores({ DEVNET_CORES: "16" })).toBe(16);
    expect(availableCores({})).toBeGreaterThan(0);
  });
});
