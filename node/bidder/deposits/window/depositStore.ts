import type { NodeStore } from "../../../store/db.ts";

/** Auto-deposit settings that survive a restart. */
export interface AutoDepositState {
  amountPerWindow: bigint;
}

/**
 * A window is a uint64 and SQLite's integers are int64: a window is stored as the int64 of the same 64 bits, and read
 * back, exactly, as the uint64 (sorted in JS, since SQLite orders the windows above 2^63 first).
 */
const stored = (w: bigint) => BigInt.asIntN(64, w);
const window = (v: bigint) => BigInt.asUintN(64, v);

/**
 * The bidder's record of the windows it deposited in (manual and automatic), and the auto-deposit setting.
 * Upstream keeps the same (`dep/<w>` keys); the record drives AutoDepositStatus and the windows auto-deposit
 * withdraws.
 */
export class DepositStore {
  constructor(private readonly store: NodeStore) {
    store.migrate("deposits-1", `CREATE TABLE deposit_windows (window INTEGER PRIMARY KEY);`);
  }

  addWindows(windows: bigint[]): void {
    const q = this.store.db.query("INSERT OR IGNORE INTO deposit_windows (window) VALUES (?)");
    this.store.db.transaction(() => {
      for (const w of windows) q.run(stored(w));
    })();
  }

  removeWindows(windows: bigint[]): void {
    const q = this.store.db.query("DELETE FROM deposit_windows WHERE window = ?");
    this.store.db.transaction(() => {
      for (const w of windows) q.run(stored(w));
    })();
  }

  hasWindow(w: bigint): boolean {
    return this.store.db.query("SELECT 1 FROM deposit_windows WHERE window = ?").get(stored(w)) !== null;
  }

  /** Every window deposited in, ascending. */
  windows(): bigint[] {
    return this.store.db
      .query<{ window: bigint }, []>("SELECT window FROM deposit_windows")
      .safeIntegers(true) // a number would round the windows above 2^53
      .all()
      .map((r) => window(r.window))
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }

  autoDeposit(): AutoDepositState | undefined {
    const v = this.store.getKv("autodeposit.amount");
    return v === undefined ? undefined : { amountPerWindow: BigInt(v) };
  }

  setAutoDeposit(s: AutoDepositState | undefined): void {
    if (s) this.store.setKv("autodeposit.amount", s.amountPerWindow.toString());
    else this.store.deleteKv("autodeposit.amount");
  }
}
