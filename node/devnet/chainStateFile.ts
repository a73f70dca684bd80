/**
 * The last good copy of an Anvil state file. Anvil dumps its state (`--state`, every second here) by truncating the
 * file and writing it again in place, with no temporary file and rename (foundry's `write_json_file`), so a SIGKILL
 * that lands during a dump (a machine crash, or `kill -9` of the devnet's process group) leaves a torn file, which
 * Anvil then refuses to load. Before each start the devnet checks the file: a whole one is copied aside (atomically)
 * as the last good copy; a torn one is kept for inspection and the last good copy takes its place, so the chain
 * comes back as it was at the previous start instead of not at all.
 */
import { copyFileSync, existsSync, readFileSync, renameSync } from "node:fs";

export type StateFileCheck =
  /** No state file yet: a new chain. */
  | { kind: "none" }
  /** The file is whole; it is now also the last good copy. */
  | { kind: "good" }
  /** The file was torn: it moved to `torn`, and the last good copy took its place. */
  | { kind: "restored"; torn: string }
  /** The file was torn and there is no good copy: it moved to `torn`, and the chain starts from genesis. */
  | { kind: "lost"; torn: string };

function whole(path: string): boolean {
  try {
    JSON.parse(readFileSync(path, "utf8"));
    return true;
  } catch {
    return false;
  }
}

/** Copies `from` to `to` so that `to` is always either the old file or the whole new one. */
function copyAtomically(from: string, to: string): void {
  copyFileSync(from, `${to}.tmp`);
  renameSync(`${to}.tmp`, to);
}

/** Checks `path` before Anvil loads it; see the module comment. */
export function keepLastGoodState(path: string): StateFileCheck {
  if (!existsSync(path)) return { kind: "none" };
  const good = `${path}.good`;
  if (whole(path)) {
    copyAtomically(path, good);
    return { kind: "good" };
  }
  const torn = `${path}.torn`;
  renameSync(path, torn);
  if (!existsSync(good) || !whole(good)) return { kind: "lost", torn };
  copyAtomically(good, path);
  return { kind: "restored", torn };
}
