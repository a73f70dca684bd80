import { expect, test } from "bun:test";
import { CliUsageError, integerFlag, nearestOption, parseArgsOr } from "./cli.ts";

test("integerFlag: an integer of at least the minimum, anything else a usage error naming the flag", () => {
  expect(integerFlag("bids", "500")).toBe(500);
  expect(integerFlag("warmup", "0", 0)).toBe(0);
  for (const bad of ["0", "1.5", "abc", ""])
    expect(() => integerFlag("bids", bad)).toThrow(new CliUsageError(`--bids must be an integer ≥ 1, got "${bad}"`));
  expect(integerFlag("bids", "0", 0)).toBe(0);
});

test("a mistyped flag is answered with the nearest known one; a flag near none, or near two, with none", () => {
  const options = {
    protocol: { type: "string" },
    transport: { type: "string" },
    tags: { type: "string" },
    target: { type: "string" },
    help: { type: "boolean" },
  } as const;
  const unknown = (args: string[]) => {
    try {
      parseArgsOr({ args, options }, (m) => new CliUsageError(m));
    } catch (e) {
      return (e as Error).message;
    }
    return "parsed";
  };
  expect(unknown(["--protcol", "v1.2"])).toBe("unknown option --protcol (did you mean --protocol?)");
  expect(unknown(["--tranport=grpc"])).toBe("unknown option --tranport (did you mean --transport?)");
  expect(unknown(["--tag", "@x"])).toBe("unknown option --tag (did you mean --tags?)");
  expect(unknown(["--bogus"])).toBe("unknown option --bogus");
  // --taget is one edit from --target and two from --tags: the nearer wins.
  expect(nearestOption("--taget", options)).toBe("--target");
  // --alphc is one edit from both --alpha and --alphb: no guess.
  expect(nearestOption("--alphc", { alpha: { type: "string" }, alphb: { type: "string" } })).toBeUndefined();
});
