import type { NodeStore } from "../../store/db.ts";

/** Auto-deposit settings that survive a restart. */
export interface AutoDepositState {
  amountPerWindow: bigint;
}

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
      for (const w of windows) q.run(w);
    })();
  }

  removeWindows(windows: bigint[]): void {
    const q = this.store.db.query("DELETE FROM deposit_windows WHERE window = ?");
    this.store.db.transaction(() => {
      for (const w of windows) q.run(w);
    })();
  }

  hasWindow(w: bigint): boolean {
    return this.store.db.query("SELECT 1 FROM deposit_windows WHERE window = ?").get(w) !== null;
  }

  /** Every window deposited in, ascending. */
  windows(): bigint[] {
    return this.store.db
      .query<{ window: number | bigint }, []>("SELECT window FROM deposit_windows ORDER BY window")
      .all()
      .map((r) => BigInt(r.window));
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
