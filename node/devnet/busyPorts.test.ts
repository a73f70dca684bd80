/** A start whose ports are taken names the first busy one by its flag, and advises --port-base. */
import { expect, test } from "bun:test";
import { createServer } from "node:net";
import { freePortBase } from "../testing/freePortBase.ts";
import { checkPortsFree, namedPorts, PortsBusyError } from "./busyPorts.ts";
import { DEFAULTS, portsFromBase } from "./config.ts";

test("the ports a devnet listens on, by flag: none of an existing chain's, no libp2p port in-process", () => {
  const cfg = { ...DEFAULTS, l1RpcUrl: "http://127.0.0.1:9999", network: "in-process" as const };
  const flags = namedPorts(cfg).map((p) => `${p.port} ${p.flag}`);
  expect(flags).toContain("8546 --settlement-port");
  expect(flags).toContain("13723 --provider-ports (provider 1)");
  expect(flags.some((f) => f.startsWith("8545 "))).toBe(false);
  expect(flags.some((f) => f.includes("p2p") || f.includes("bootnode"))).toBe(false);
  expect(namedPorts({ ...DEFAULTS, network: "processes" }).map((p) => p.flag)).toContain(
    "--bidder-port + 2 (its admin API)",
  );
});

test("a busy port: PortsBusyError names it and its flag, and a --port-base that is free", async () => {
  const base = await freePortBase(2);
  const cfg = { ...DEFAULTS, ...portsFromBase(base, 2) };
  await checkPortsFree(cfg);
  const srv = createServer().listen(cfg.l1Port, "127.0.0.1");
  await new Promise((r) => srv.once("listening", r));
  try {
    const e = await checkPortsFree(cfg).catch((x) => x);
    expect(e).toBeInstanceOf(PortsBusyError);
    expect(e.message).toMatch(
      new RegExp(
        `^port ${cfg.l1Port} \\(--l1-port\\) on 127\\.0\\.0\\.1 is in use: .* --port-base \\d+ \\(free now\\)`,
      ),
    );
  } finally {
    srv.close();
  }
});
