import { describe, expect, test } from "bun:test";
import { CliUsageError } from "../../lib/cli.ts";
import { chooseProtocol } from "./protocolChoice.ts";

describe("chooseProtocol", () => {
  test("without a target: the flag, else v1.1", () => {
    expect(chooseProtocol(undefined)).toBe("v1.1");
    expect(chooseProtocol("v1.2")).toBe("v1.2");
  });
  test("the target file wins; absent means v1.1", () => {
    expect(chooseProtocol(undefined, { protocol: "v1.2" })).toBe("v1.2");
    expect(chooseProtocol(undefined, {})).toBe("v1.1");
    expect(chooseProtocol("v1.2", { protocol: "v1.2" })).toBe("v1.2");
  });
  test("a flag that disagrees with the file, an unknown version: usage errors naming both", () => {
    expect(() => chooseProtocol("v1.2", {}, "t.json")).toThrow(
      new CliUsageError(
        '--protocol v1.2 disagrees with t.json, which says v1.1 (no "protocol": v1.1); drop --protocol or use a target of v1.2',
      ),
    );
    expect(() => chooseProtocol("v1.3")).toThrow(/--protocol: unknown protocol version "v1.3"/);
    expect(() => chooseProtocol(undefined, { protocol: "1.2" }, "t.json")).toThrow(/t.json: unknown protocol version/);
  });
});
