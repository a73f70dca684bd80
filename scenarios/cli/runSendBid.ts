/**
 * Tests' way to run `npm run bid` as a user does: `bun scenarios/cli/sendBid.ts --target FILE …` in a process of its
 * own from the repository root, with what it printed and its exit status.
 */
import { resolve } from "node:path";
import { spawn } from "bun";

const ROOT = resolve(import.meta.dir, "../..");

export interface SendBidRun {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runSendBid(targetFile: string, ...args: string[]): Promise<SendBidRun> {
  const p = spawn(["bun", "scenarios/cli/sendBid.ts", "--target", targetFile, ...args], {
    cwd: ROOT,
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(p.stdout).text(),
    new Response(p.stderr).text(),
    p.exited,
  ]);
  return { code, stdout, stderr };
}
