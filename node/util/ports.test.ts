import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { freePort, freePorts } from "./ports.ts";

const ephemeralLow = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);

describe("free ports", () => {
  test("are distinct across calls, outside the OS's ephemeral range, and can be listened on", async () => {
    const ports = [...(await freePorts(30)), await freePort(), await freePort()];
    expect(new Set(ports).size).toBe(ports.length);
    expect(ports.filter((p) => p >= ephemeralLow)).toEqual([]);
    for (const port of ports) {
      const srv = createServer();
      await new Promise<void>((resolve, reject) => {
        srv.once("error", reject);
        srv.listen(port, "127.0.0.1", resolve);
      });
      await new Promise((r) => srv.close(r));
    }
  });

  test("never one of the ports to avoid", async () => {
    const taken = await freePorts(200);
    const avoid = new Set(taken.slice(0, 100));
    for (const port of await freePorts(100, "127.0.0.1", avoid)) expect(avoid.has(port)).toBe(false);
  });
});

describe("a devnet's configured ports", () => {
  test("every named port, extra bidders' included, none that is chosen at listen time", async () => {
    const { DEFAULTS, configuredPorts } = await import("../devnet/config.ts");
    const ports = configuredPorts({ ...DEFAULTS, bidders: 3, bidderP2pPort: 0 });
    for (const p of [
      13523, 13524, 13533, 13534, 13543, 13544, 13623, 13723, 13624, 13724, 13500, 13501, 8545, 8546, 13510, 13620,
      13720,
    ])
      expect(ports.has(p)).toBe(true);
    expect(ports.has(0)).toBe(false);
    expect(ports.has(13520)).toBe(false);
  });
});
