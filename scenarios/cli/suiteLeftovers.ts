/**
 * Before `npm run bid` sends anything: what a run of the conformance suite stopped hard (SIGKILL, a crash) left
 * changed on the devnet — its own L1 blocks paused, the built-in provider applications detached, the bidder's
 * auto-deposit off, each of which alone keeps a bid from committing — is put back from the record the run keeps next
 * to the target file (features/support/targetChanges.ts), and said. A run still in progress is left alone: the
 * command fails with one line that says so.
 */
import { existsSync } from "node:fs";
import { loadTargetFile } from "../../features/support/target.ts";
import {
  describeRecord,
  putBackLeftChanges,
  recordPathFor,
  TargetChangesError,
} from "../../features/support/targetChanges.ts";
import { CliFailure } from "../../lib/cli.ts";

export async function putBackWhatTheSuiteLeft(targetFile: string): Promise<void> {
  if (!existsSync(recordPathFor(targetFile))) return;
  let left: Awaited<ReturnType<typeof putBackLeftChanges>>;
  try {
    left = await putBackLeftChanges(targetFile, loadTargetFile(targetFile));
  } catch (e) {
    if (e instanceof TargetChangesError) throw new CliFailure(e.message);
    throw e;
  }
  if (!left) return;
  const what = describeRecord(left.record).join(", ") || "nothing it still had to put back";
  const stuck = left.lines.filter((l) => !l.startsWith("restored"));
  if (stuck.length)
    throw new CliFailure(
      `the conformance suite left the devnet changed (${what}) and putting it back failed: ${stuck.join("; ")}; restart the devnet (npm run node)`,
    );
  console.log(`the conformance suite left the devnet changed (${what}); put back:`);
  for (const line of left.lines) console.log(`  ${line}`);
  console.log("");
}
