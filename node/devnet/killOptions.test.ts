import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { InvalidArgumentError } from "../protocol/grpcCodes.ts";
import { NodeStore } from "../store/db.ts";
import { parseKillPoint, parseReplayFrom, rewindEventCursor } from "./nodeOps.ts";

describe("the kill route's options", () => {
  test("at: now by default, after-ack, anything else InvalidArgument", () => {
    expect(parseKillPoint(undefined)).toBe("now");
    expect(parseKillPoint("now")).toBe("now");
    expect(parseKillPoint("after-ack")).toBe("after-ack");
    expect(() => parseKillPoint("before-ack")).toThrow(InvalidArgumentError);
  });

  test("replayFrom: a settlement block above 0, as a number or a decimal string", () => {
    expect(parseReplayFrom(undefined)).toBeUndefined();
    expect(parseReplayFrom("12")).toBe(12n);
    expect(parseReplayFrom(7)).toBe(7n);
    for (const bad of ["0", "-1", "0x10", "", "1.5"]) expect(() => parseReplayFrom(bad)).toThrow(InvalidArgumentError);
  });

  test("rewindEventCursor sets a stored cursor back and drops its block hash, never forward", () => {
    const dir = mkdtempSync(join(tmpdir(), "kill-options-"));
    try {
      const path = join(dir, "node.db");
      const seed = new NodeStore(path);
      seed.setKv("events.cursor", "500");
      seed.setKv("events.cursor.hash", "0xabc");
      seed.close();

      rewindEventCursor(path, 100n);
      let s = new NodeStore(path);
      expect(s.getKv("events.cursor")).toBe("99");
      expect(s.getKv("events.cursor.hash")).toBeUndefined();
      s.close();

      rewindEventCursor(path, 300n);
      s = new NodeStore(path);
      expect(s.getKv("events.cursor")).toBe("99");
      s.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
