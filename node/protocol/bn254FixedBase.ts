/**
 * Fixed-base multiplication on BN254 G1 (mcl-wasm): for a point multiplied again and again (the generator for every
 * fresh key, a provider's NIKE key for every commitment its bidders check), its multiples d·2^(8i)·P for every byte
 * position i and byte value d are computed once; k·P is then the sum of one table entry per byte of k, 32 mixed
 * additions (~55 µs) instead of a variable-base multiplication (~180 µs). A table holds 8,160 points (~2 MB) and
 * takes ~30 ms to build, so it pays off after a few hundred uses.
 *
 * Not constant-time, like mcl's own `mul` it replaces: the table rows read depend on the scalar's bytes.
 */
import * as mcl from 'mcl-wasm';

const WINDOWS = 32; // bytes of a 256-bit scalar
const ROW = 256;

export class FixedBaseTable {
  /** rows[i][d] = d · 256^i · P (affine), d in 1..255. */
  private readonly rows: mcl.G1[][] = [];

  constructor(point: mcl.G1) {
    let base = mcl.normalize(point);
    for (let i = 0; i < WINDOWS; i++) {
      const row: mcl.G1[] = new Array(ROW);
      row[1] = base;
      for (let d = 2; d < ROW; d++) row[d] = mcl.normalize(mcl.add(row[d - 1]!, base));
      this.rows.push(row);
      base = mcl.normalize(mcl.add(row[ROW - 1]!, base));
    }
  }

  /**
   * k · P for 0 ≤ k < 2^256. For k below the group order no partial sum ever equals the next entry or its negation
   * (both are distinct multiples below the order), so plain additions are exact.
   */
  mul(k: bigint): mcl.G1 {
    const hex = k.toString(16).padStart(64, '0');
    let acc: mcl.G1 | undefined;
    for (let i = 0; i < WINDOWS; i++) {
      const d = parseInt(hex.slice(62 - 2 * i, 64 - 2 * i), 16);
      if (d !== 0) acc = acc === undefined ? this.rows[i]![d]! : mcl.add(acc, this.rows[i]![d]!);
    }
    return acc ?? new mcl.G1();
  }
}
