import { expect, test } from "bun:test";
import { judgeCurrent, parseCurrentCell, STALE_CURRENT } from "./support/autoDepositCurrent.ts";

const status = (current: number[], windows = [9, 10, 11]) =>
  windows.map((w) => ({ windowNumber: String(w), isCurrent: current.includes(w) }));

test("'yes or stale': the window marked current passes, reported as not observed", () => {
  expect(judgeCurrent(status([10]), 10n, "yes or stale")).toEqual({
    problem: null,
    observation: { what: STALE_CURRENT, observed: false, detail: "window 10 marked current" },
  });
});

test("'yes or stale': an earlier window, or none, marked current passes, reported as observed", () => {
  expect(judgeCurrent(status([9]), 10n, "yes or stale")).toEqual({
    problem: null,
    observation: { what: STALE_CURRENT, observed: true, detail: "window 10 not marked current; marked current: 9" },
  });
  expect(judgeCurrent(status([]), 10n, "yes or stale").observation?.observed).toBe(true);
});

test("'yes or stale': a later window or two windows marked current fail", () => {
  expect(judgeCurrent(status([11]), 10n, "yes or stale").problem).toBe(
    "window 11 is marked current, later than window 10",
  );
  expect(judgeCurrent(status([9, 10]), 10n, "yes or stale").problem).toBe("windows 9, 10 are all marked current");
});

test("'yes' and 'no' are judged, with no observation", () => {
  expect(judgeCurrent(status([9]), 10n, "yes")).toEqual({
    problem: "window 10: isCurrent is false",
    observation: null,
  });
  expect(judgeCurrent(status([10]), 10n, "no").problem).toBe("window 10: isCurrent is true");
  expect(judgeCurrent(status([10]), 11n, "no")).toEqual({ problem: null, observation: null });
  expect(judgeCurrent(status([10]), 12n, "no").problem).toBe("window 12 is not listed");
});

test("'any' judges only that the window is listed", () => {
  expect(judgeCurrent(status([10]), 10n, "any")).toEqual({ problem: null, observation: null });
  expect(judgeCurrent(status([]), 10n, "any")).toEqual({ problem: null, observation: null });
  expect(judgeCurrent(status([10]), 12n, "any").problem).toBe("window 12 is not listed");
});

test("a current cell other than yes, no, 'yes or stale' or any is refused", () => {
  expect(parseCurrentCell("yes or stale")).toBe("yes or stale");
  expect(parseCurrentCell("any")).toBe("any");
  expect(() => parseCurrentCell("maybe")).toThrow('current must be "yes", "no", "yes or stale" or "any", not "maybe"');
});
