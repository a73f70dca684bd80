import { describe, expect, test } from "bun:test";
import { readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startLocalDevnet } from "./localDevnet.ts";

const devnetDirs = () => new Set(readdirSync(tmpdir()).filter((n) => n.startsWith("mev-commit-devnet-")));

describe("startLocalDevnet", () => {
  test("a devnet that fails to start leaves no temporary data dir behind", async () => {
    const busy = createServer().listen(0, "127.0.0.1");
    await new Promise((r) => busy.once("listening", r));
    const port = (busy.address() as { port: number }).port;
    const before = devnetDirs();
    const log = join(tmpdir(), `mev-commit-localDevnet-${process.pid}.log`);
    try {
      await expect(startLocalDevnet({ l1Port: port }, log)).rejects.toThrow();
    } finally {
      busy.close();
      rmSync(log, { force: true });
    }
    expect([...devnetDirs()].filter((d) => !before.has(d))).toEqual([]);
  }, 60_000);
});
