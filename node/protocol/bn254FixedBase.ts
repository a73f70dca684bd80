/**
 * Fixed-base multiplication on BN254 G1 (mcl-wasm): for a point multiplied again and again (the generator for every
 * fresh key, a provider's NIKE key for every commitment its bidders check), its multiples d·2^(8i)·P for every byte
 * position i and byte value d are computed once; k·P is then the sum of one table entry per byte of k, 32 mixed
 * additions (45–65 µs) instead of a variable-base multiplication (~200 µs). A table holds 8,160 affine points (~1.2 MB).
 *
 * The table and the running sum live in the WebAssembly module's memory and the additions call mcl's C functions on
 * them directly: mcl-wasm's `add` allocates a JavaScript object and an array for each result and copies both operands
 * onto its stack, which cost more than the addition itself on a busy event loop (and fed its garbage collector ~90
 * objects per multiplication): `crypto.bench` key pair 133 → 63 µs, commitment verify 232 → 153 µs. A table builds in
 * 40 ms instead of 65 (a stall of the event loop once per provider key).
 *
 * Not constant-time, like mcl's own `mul` it replaces: the table entries read depend on the scalar's bytes.
 */
import mclModule, * as mcl from "mcl-wasm";

const WINDOWS = 32; // bytes of a 256-bit scalar
const ROW = 256;
/** Bytes of a G1 point in mcl's memory (three coordinates of its 384-bit field build). */
const G1_BYTES = 144;

interface Mcl {
  _malloc(bytes: number): number;
  _mclBnG1_add(z: number, x: number, y: number): void;
  _mclBnG1_normalize(y: number, x: number): void;
  readonly HEAP32: Int32Array;
}

/** A point's words as mcl-wasm keeps them (`a_`, internal to its types), in mcl's own memory layout. */
function words(p: mcl.G1): Uint32Array {
  return (p as unknown as { a_: Uint32Array }).a_;
}

/** mcl's compiled module; read through the CommonJS exports object, whose `mod` is set only by `init`. */
function wasm(): Mcl {
  return (mclModule as unknown as { mod: Mcl }).mod;
}

export class FixedBaseTable {
  /** Entry (i, d) = d · 256^i · P (affine) at base + ((i · ROW + d) · G1_BYTES), d in 1..255. */
  private readonly base: number;
  /** Where `mul` sums: the table's own scratch point, so tables never share one. */
  private readonly acc: number;

  constructor(point: mcl.G1) {
    const m = wasm();
    if (words(point).length * 4 !== G1_BYTES)
      throw new Error(`mcl-wasm's G1 is ${words(point).length * 4} bytes, expected ${G1_BYTES}`);
    this.base = m._malloc(WINDOWS * ROW * G1_BYTES);
    this.acc = m._malloc(G1_BYTES);
    const first = this.entry(0, 1);
    m.HEAP32.set(words(point), first >> 2);
    m._mclBnG1_normalize(first, first);
    for (let i = 0; i < WINDOWS; i++) {
      const one = this.entry(i, 1);
      for (let d = 2; d < ROW; d++) {
        const at = this.entry(i, d);
        m._mclBnG1_add(at, this.entry(i, d - 1), one);
        m._mclBnG1_normalize(at, at);
      }
      if (i + 1 < WINDOWS) {
        const next = this.entry(i + 1, 1);
        m._mclBnG1_add(next, this.entry(i, ROW - 1), one);
        m._mclBnG1_normalize(next, next);
      }
    }
  }

  private entry(i: number, d: number): number {
    return this.base + (i * ROW + d) * G1_BYTES;
  }

  /**
   * k · P for 0 ≤ k < 2^256. For k below the group order no partial sum ever equals the next entry or its negation
   * (both are distinct multiples below the order), so plain additions are exact.
   */
  mul(k: bigint): mcl.G1 {
    const m = wasm();
    const hex = k.toString(16).padStart(64, "0");
    const out = new mcl.G1();
    let started = false;
    for (let i = 0; i < WINDOWS; i++) {
      const d = parseInt(hex.slice(62 - 2 * i, 64 - 2 * i), 16);
      if (d === 0) continue;
      if (started) m._mclBnG1_add(this.acc, this.acc, this.entry(i, d));
      else {
        const from = this.entry(i, d) >> 2;
        m.HEAP32.copyWithin(this.acc >> 2, from, from + G1_BYTES / 4);
        started = true;
      }
    }
    if (started) words(out).set(m.HEAP32.subarray(this.acc >> 2, (this.acc >> 2) + G1_BYTES / 4));
    return out;
  }
}
