import { expect, test } from "bun:test";
import { BoundedMap } from "./boundedMap.ts";

test("a BoundedMap forgets its oldest entries beyond its size; setting a key again keeps its place", () => {
  const m = new BoundedMap<number, string>(2);
  m.set(1, "a").set(2, "b").set(1, "a2").set(3, "c");
  expect([...m]).toEqual([
    [2, "b"],
    [3, "c"],
  ]);
});
