import { describe, expect, test } from "bun:test";
import { spawn } from "bun";
import { processCpuLines, processCpuRows, processName, snapshotProcessCpu } from "./processCpu.ts";

describe("per-process CPU of a target's tree", () => {
  test("rows: CPU per bid, cores busy over the wall time and the busiest thread's share, busiest first", () => {
    const a = {
      at: 0,
      byPid: new Map([
        [1, { cpuMs: 100, threads: new Map([[1, 100]]) }],
        [
          2,
          {
            cpuMs: 50,
            threads: new Map([
              [2, 30],
              [3, 20],
            ]),
          },
        ],
      ]),
    };
    const b = {
      at: 1000,
      byPid: new Map([
        [1, { cpuMs: 300, threads: new Map([[1, 300]]) }],
        [
          2,
          {
            cpuMs: 1550,
            threads: new Map([
              [2, 930],
              [3, 620],
            ]),
          },
        ],
        [9, { cpuMs: 5, threads: new Map([[9, 5]]) }],
      ]),
    };
    const rows = processCpuRows(a, b, 100);
    expect(rows.map((r) => r.pid)).toEqual([2, 1]);
    expect(rows[0]).toMatchObject({ cpuMsPerBid: 15, cores: 1.5, busiestThreadPercent: 90 });
    expect(rows[1]).toMatchObject({ cpuMsPerBid: 2, cores: 0.2, busiestThreadPercent: 20 });
    expect(processCpuLines(8, rows)[0]).toContain("8 in flight");
  });

  test("a real child process is found under its parent and named from its command line", async () => {
    const child = spawn([
      "bun",
      "-e",
      "setTimeout(() => {}, 20000)",
      "--",
      "--role",
      "provider",
      "--http-port",
      "4242",
    ]);
    try {
      await Bun.sleep(300);
      const snap = snapshotProcessCpu(process.pid);
      expect(snap.byPid.has(child.pid)).toBe(true);
      expect(processName(child.pid)).toBe("provider :4242");
    } finally {
      child.kill();
    }
  });
});
