import { expect, test } from "bun:test";
import { Ahead } from "./ahead.ts";

const gate = () => {
  let open!: () => void;
  const p = new Promise<void>((r) => (open = r));
  return { p, open };
};
const turn = () => Bun.sleep(0);

test("started before it is taken: take() gives its result", async () => {
  const g = gate();
  let runs = 0;
  const a = new Ahead(g.p, async () => {
    runs++;
    return 42;
  });
  g.open();
  await turn();
  expect(await a.take()).toBe(42);
  expect(runs).toBe(1);
});

test("taken or dropped before it starts: undefined, and it never runs", async () => {
  for (const end of ["take", "drop"] as const) {
    const g = gate();
    let runs = 0;
    const a = new Ahead(g.p, async () => {
      runs++;
      return 1;
    });
    let got: number | undefined;
    if (end === "take") got = await a.take();
    else a.drop();
    g.open();
    await turn();
    expect(got).toBeUndefined();
    expect(runs).toBe(0);
  }
});

test("a failure is undefined (the caller does the work again and meets the error itself)", async () => {
  const a = new Ahead(Promise.resolve(), async () => {
    throw new Error("not on the curve");
  });
  await turn();
  expect(await a.take()).toBeUndefined();
});

test("taken while it runs: take() waits for it", async () => {
  const inner = gate();
  const a = new Ahead(Promise.resolve(), async () => {
    await inner.p;
    return "done";
  });
  await turn();
  const taken = a.take();
  inner.open();
  expect(await taken).toBe("done");
});

test("one at a time: a second due while the first runs is not started; after it, the next one is", async () => {
  const inner = gate();
  const order: string[] = [];
  const first = new Ahead(Promise.resolve(), async () => {
    order.push("first");
    await inner.p;
    return 1;
  });
  await turn();
  const second = new Ahead(Promise.resolve(), async () => {
    order.push("second");
    return 2;
  });
  await turn();
  inner.open();
  expect(await first.take()).toBe(1);
  expect(await second.take()).toBeUndefined();
  const third = new Ahead(Promise.resolve(), async () => {
    order.push("third");
    return 3;
  });
  await turn();
  expect(await third.take()).toBe(3);
  expect(order).toEqual(["first", "third"]);
});
