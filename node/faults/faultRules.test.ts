import { describe, expect, test } from "bun:test";
import { FAULTS_TABLE, hostRules, nftScript, qdiscCommands, tbfBurstBytes } from "./faultRules.ts";
import { checkSpec, type FaultSpec, kindsOf, parseFaultFlag } from "./faultSpec.ts";

const HOSTS = ["bidder", "provider-0", "provider-1"];
const IPS: Record<string, string> = { bidder: "10.9.9.1", "provider-0": "10.9.9.2", "provider-1": "10.9.9.3" };
const addr = (h: string) => ({ ip: IPS[h]!, iface: `if-${h}` });
const ip = (h: string) => IPS[h]!;

describe("fault specs", () => {
  test("the start flag's form becomes the same spec as the JSON", () => {
    expect(parseFaultFlag("provider-1/bidder:partition", HOSTS)).toEqual({
      hosts: ["bidder", "provider-1"],
      partition: true,
    });
    expect(parseFaultFlag("provider-0:loss=10%,rate=1mbit,delay=50ms,jitter=5", HOSTS)).toEqual({
      hosts: ["provider-0"],
      lossPercent: 10,
      rateKbit: 1000,
      delayMs: 50,
      jitterMs: 5,
    });
    expect(checkSpec({ hosts: ["provider-0"], lossPercent: 10, rateKbit: 1000 }, HOSTS)).toEqual({
      hosts: ["provider-0"],
      lossPercent: 10,
      rateKbit: 1000,
    });
  });

  test("what a spec cannot be is refused with the reason", () => {
    const refused = (raw: unknown) => {
      try {
        checkSpec(raw, HOSTS);
      } catch (e) {
        return (e as Error).message;
      }
      return "accepted";
    };
    expect(refused({ hosts: ["provider-9"], partition: true })).toBe(
      "no host provider-9: the hosts are bidder, provider-0, provider-1",
    );
    expect(refused({ hosts: ["bidder"], partition: true })).toContain("a partition is between a pair of hosts");
    expect(refused({ hosts: ["bidder", "bidder"], partition: true })).toContain("two different hosts");
    expect(refused({ hosts: ["bidder", "provider-0"], delayMs: 100, rateKbit: 100 })).toBe("accepted");
    expect(refused({ hosts: ["bidder"], lossPercent: 0 })).toBe("lossPercent must be an integer from 1 to 100, got 0");
    expect(refused({ hosts: ["bidder"], jitterMs: 5 })).toContain("jitterMs needs delayMs");
    expect(refused({ hosts: ["bidder"] })).toContain("a fault needs at least one of");
    expect(refused({ hosts: ["bidder"], drop: 1 })).toContain("unknown fault fields drop");
    expect(() => parseFaultFlag("bidder:loss=ten", HOSTS)).toThrow("loss=ten is not a number");
    expect(() => parseFaultFlag("partition", HOSTS)).toThrow("expected HOST[/HOST]:SETTING");
    expect(() => parseFaultFlag("bidder/provider-0:cut", HOSTS)).toThrow('unknown setting "cut"');
  });

  test("each spec names the kinds it needs", () => {
    expect(kindsOf({ hosts: ["a", "b"], partition: true, lossPercent: 5 })).toEqual(["partition", "loss"]);
    expect(kindsOf({ hosts: ["a"], rateKbit: 8, delayMs: 1 })).toEqual(["bandwidth", "delay"]);
  });
});

describe("rules of each host", () => {
  const faults: FaultSpec[] = [
    { hosts: ["bidder", "provider-1"], partition: true },
    { hosts: ["bidder", "provider-0"], lossPercent: 20 },
    { hosts: ["provider-0"], lossPercent: 5, rateKbit: 800 },
  ];

  test("a partition drops the pair's packets both ways, on both hosts; a third host is untouched", () => {
    expect(hostRules("provider-1", faults, addr)).toEqual({
      input: ["ip saddr 10.9.9.1 drop"],
      output: ["ip daddr 10.9.9.1 drop"],
    });
    const bidder = hostRules("bidder", faults, addr);
    expect(bidder.input).toEqual(["ip saddr 10.9.9.3 drop"]);
    expect(bidder.output).toEqual(["ip daddr 10.9.9.3 drop", "ip daddr 10.9.9.2 numgen random mod 100 < 20 drop"]);
    expect(hostRules("provider-1", [faults[1]!], addr)).toEqual({ input: [], output: [] });
  });

  test("loss on a host meets each of its packets once, in or out", () => {
    expect(hostRules("provider-0", [faults[2]!], addr)).toEqual({
      input: ["numgen random mod 100 < 5 drop"],
      output: ["numgen random mod 100 < 5 drop"],
    });
  });

  test("a loss of 100 % drops every packet (numgen's values stop at 99)", () => {
    expect(hostRules("bidder", [{ hosts: ["bidder", "provider-0"], lossPercent: 100 }], addr).output).toEqual([
      "ip daddr 10.9.9.2 drop",
    ]);
  });

  test("the nft text replaces the whole table in one go, loopback exempt, and removes it when empty", () => {
    const text = nftScript(["ip saddr 10.9.9.1 drop"], []);
    expect(text.split("\n").slice(0, 3)).toEqual([
      `table inet ${FAULTS_TABLE}`,
      `delete table inet ${FAULTS_TABLE}`,
      `table inet ${FAULTS_TABLE} {`,
    ]);
    expect(text).toContain('iifname "lo" accept\n    ip saddr 10.9.9.1 drop');
    expect(text).toContain("type filter hook output priority -10; policy accept;");
    expect(nftScript([], [])).toBe(`table inet ${FAULTS_TABLE}\ndelete table inet ${FAULTS_TABLE}\n`);
  });

  test("bandwidth is a tbf at the root; with delay, netem at the root and the tbf under it", () => {
    expect(qdiscCommands("if0", faults, "provider-0", ip)).toEqual([
      [
        "qdisc",
        "add",
        "dev",
        "if0",
        "root",
        "handle",
        "1:",
        "tbf",
        "rate",
        "800kbit",
        "burst",
        "4096",
        "latency",
        "400ms",
      ],
    ]);
    expect(
      qdiscCommands("if0", [{ hosts: ["bidder"], delayMs: 50, jitterMs: 10, rateKbit: 100_000 }], "bidder", ip),
    ).toEqual([
      ["qdisc", "add", "dev", "if0", "root", "handle", "1:", "netem", "delay", "50ms", "10ms"],
      [
        "qdisc",
        "add",
        "dev",
        "if0",
        "parent",
        "1:1",
        "handle",
        "10:",
        "tbf",
        "rate",
        "100000kbit",
        "burst",
        "250000",
        "latency",
        "400ms",
      ],
    ]);
    expect(qdiscCommands("if0", faults, "bidder", ip)).toEqual([]);
    expect(tbfBurstBytes(8)).toBe(4096);
  });

  test("a cap towards one peer is an htb: the link's class, the rest, and a class per capped peer with its u32 filter", () => {
    const pair: FaultSpec[] = [
      { hosts: ["bidder", "provider-1"], rateKbit: 256 },
      { hosts: ["bidder"], rateKbit: 1000, delayMs: 30 },
    ];
    expect(qdiscCommands("if0", pair, "bidder", ip).map((c) => c.join(" "))).toEqual([
      "qdisc add dev if0 root handle 1: htb default 2",
      "class add dev if0 parent 1: classid 1:1 htb rate 1000kbit ceil 1000kbit",
      "class add dev if0 parent 1:1 classid 1:2 htb rate 8kbit ceil 1000kbit",
      "qdisc add dev if0 parent 1:2 handle 2: netem delay 30ms",
      "class add dev if0 parent 1:1 classid 1:10 htb rate 8kbit ceil 256kbit",
      "filter add dev if0 parent 1: protocol ip prio 1 u32 match ip dst 10.9.9.3/32 flowid 1:10",
      "qdisc add dev if0 parent 1:10 handle 10: netem delay 30ms",
    ]);
    // The peer caps what it sends back the same way; a host with no cap of its own gets the 10 gbit/s ceiling.
    expect(qdiscCommands("if1", pair, "provider-1", ip).map((c) => c.join(" "))).toEqual([
      "qdisc add dev if1 root handle 1: htb default 2",
      "class add dev if1 parent 1: classid 1:1 htb rate 10000000kbit ceil 10000000kbit",
      "class add dev if1 parent 1:1 classid 1:2 htb rate 8kbit ceil 10000000kbit",
      "class add dev if1 parent 1:1 classid 1:10 htb rate 8kbit ceil 256kbit",
      "filter add dev if1 parent 1: protocol ip prio 1 u32 match ip dst 10.9.9.1/32 flowid 1:10",
    ]);
    expect(qdiscCommands("if2", pair, "provider-0", ip)).toEqual([]);
  });

  test("a delay towards one peer is a netem under that peer's htb class; the host's own delay stays on the rest", () => {
    const pair: FaultSpec[] = [
      { hosts: ["bidder", "provider-0"], delayMs: 100, jitterMs: 20 },
      { hosts: ["bidder"], delayMs: 5 },
    ];
    expect(qdiscCommands("if0", pair, "bidder", ip).map((c) => c.join(" "))).toEqual([
      "qdisc add dev if0 root handle 1: htb default 2",
      "class add dev if0 parent 1: classid 1:1 htb rate 10000000kbit ceil 10000000kbit",
      "class add dev if0 parent 1:1 classid 1:2 htb rate 8kbit ceil 10000000kbit",
      "qdisc add dev if0 parent 1:2 handle 2: netem delay 5ms",
      "class add dev if0 parent 1:1 classid 1:10 htb rate 8kbit ceil 10000000kbit",
      "filter add dev if0 parent 1: protocol ip prio 1 u32 match ip dst 10.9.9.2/32 flowid 1:10",
      "qdisc add dev if0 parent 1:10 handle 10: netem delay 100ms 20ms",
    ]);
  });
});

describe("a host cut from the devnet's own namespace (root) or the settlement chain (settlement)", () => {
  const PLACES = [...HOSTS, "root", "settlement"];
  const withPseudo = (h: string) =>
    h === "root"
      ? { ip: "10.9.9.254", iface: "" }
      : h === "settlement"
        ? { ip: "10.9.9.254", iface: "", port: 8546 }
        : addr(h);

  test("a pseudo-host is one end of a pair, with partition or loss only", () => {
    expect(parseFaultFlag("provider-0/settlement:partition", PLACES)).toEqual({
      hosts: ["provider-0", "settlement"],
      partition: true,
    });
    expect(() => checkSpec({ hosts: ["settlement"], lossPercent: 5 }, PLACES)).toThrow(
      "settlement is not a host: name it with one host, as a pair (e.g. provider-0/settlement)",
    );
    expect(() => checkSpec({ hosts: ["root", "settlement"], partition: true }, PLACES)).toThrow("is not a host");
    expect(() => checkSpec({ hosts: ["bidder", "root"], delayMs: 100 }, PLACES)).toThrow(
      "towards root a fault can be a partition or loss only",
    );
    expect(() => checkSpec({ hosts: ["bidder", "root"], partition: true }, HOSTS)).toThrow("no host root");
  });

  test("cut from settlement: only the chain's port, both ways, on the host's side", () => {
    const cut: FaultSpec[] = [{ hosts: ["provider-0", "settlement"], partition: true }];
    expect(hostRules("provider-0", cut, withPseudo)).toEqual({
      input: ["ip saddr 10.9.9.254 tcp sport 8546 drop"],
      output: ["ip daddr 10.9.9.254 tcp dport 8546 drop"],
    });
    expect(hostRules("provider-1", cut, withPseudo)).toEqual({ input: [], output: [] });
  });

  test("cut from root: every packet with the root namespace's address; loss towards it meets both ways on the host", () => {
    expect(hostRules("bidder", [{ hosts: ["bidder", "root"], partition: true }], withPseudo)).toEqual({
      input: ["ip saddr 10.9.9.254 drop"],
      output: ["ip daddr 10.9.9.254 drop"],
    });
    expect(hostRules("bidder", [{ hosts: ["bidder", "settlement"], lossPercent: 10 }], withPseudo)).toEqual({
      input: ["ip saddr 10.9.9.254 tcp sport 8546 numgen random mod 100 < 10 drop"],
      output: ["ip daddr 10.9.9.254 tcp dport 8546 numgen random mod 100 < 10 drop"],
    });
  });
});

describe("a host cut from the clients of its own APIs (clients)", () => {
  test("only the host's API ports towards the root namespace, both ways", () => {
    const place = (p: string, host: string) =>
      p === "clients" ? { ip: "10.9.9.254", iface: "", ownPorts: host === "bidder" ? [13523, 13524] : [] } : addr(p);
    expect(hostRules("bidder", [{ hosts: ["bidder", "clients"], partition: true }], place)).toEqual({
      input: ["ip saddr 10.9.9.254 tcp dport { 13523, 13524 } drop"],
      output: ["ip daddr 10.9.9.254 tcp sport { 13523, 13524 } drop"],
    });
    expect(
      hostRules("bidder", [{ hosts: ["bidder", "clients"], partition: true }], () => ({
        ip: "10.9.9.254",
        iface: "",
        ownPorts: [80],
      })),
    ).toEqual({ input: ["ip saddr 10.9.9.254 tcp dport 80 drop"], output: ["ip daddr 10.9.9.254 tcp sport 80 drop"] });
  });
});
