/** A small deterministic PRNG (mulberry32): the same seed gives the same sequence, for repeatable runs. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A 32-bit seed from any parts (FNV-1a over their text): one independent stream per actor of a seeded run. */
export function seedFrom(...parts: (string | number | bigint)[]): number {
  let h = 0x811c9dc5;
  for (const ch of parts.join("\u0000")) {
    h ^= ch.codePointAt(0)!;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** One number in [0, 1) for a key: the same parts give the same value, whatever else ran before. */
export function randomFor(...parts: (string | number | bigint)[]): number {
  return prng(seedFrom(...parts))();
}
