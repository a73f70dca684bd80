import { expect, test } from "bun:test";
import { busiestWindow, profileAreas } from "./profileAreas.ts";

const frame = (id: number, url: string, children?: number[]) => ({
  id,
  callFrame: { functionName: url ? "f" : "(root)", url },
  children,
});

// Root 1; node 2 in bun:sqlite, node 3 in libp2p. Samples 1 ms apart, a 10 s gap, then a burst 0.1 ms apart.
const profile = {
  nodes: [frame(1, "", [2, 3]), frame(2, "bun:sqlite"), frame(3, "node_modules/@chainsafe/libp2p-yamux/x.js")],
  samples: [2, 2, 2, 3, 3, 3, 3, 3],
  timeDeltas: [1000, 1000, 1000, 10_000_000, 100, 100, 100, 100],
};

test("busiest window: the samples inside the densest span of the profile", () => {
  expect(busiestWindow(profile, 0.001)).toEqual({ from: 3, to: 8 });
  expect(busiestWindow(profile, 60)).toEqual({ from: 0, to: 8 });
});

test("areas: a window counts only its samples", () => {
  const areas = (w?: { from: number; to: number }) =>
    Object.fromEntries(profileAreas(profile, w).map((r) => [r.area, r.ms]));
  expect(Object.keys(areas())).toEqual(["libp2p (noise, yamux, streams)", "SQLite (bun:sqlite)"]);
  expect(Object.keys(areas(busiestWindow(profile, 0.001)))).toEqual(["libp2p (noise, yamux, streams)"]);
});
