/** The report page's figures: the checks against the chain show ETH, as the rest of the page does. */
import { describe, expect, test } from "bun:test";
import { checkFigure } from "./html.ts";

describe("checkFigure", () => {
  test("wei alone, times windows, and per window: in ETH", () => {
    expect(checkFigure("1500000000000000000")).toBe("1.5 ETH");
    expect(checkFigure("0")).toBe("0");
    expect(checkFigure("1000000000000000000 × 3")).toBe("1 ETH × 3");
    expect(checkFigure("2000000000000000000 in window 4, 3000000000000000000 in window 5")).toBe(
      "2 ETH in window 4, 3 ETH in window 5",
    );
  });
});
