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
});
