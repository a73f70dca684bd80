/** Bundles signer.ts into loadtest/.bin/gate-signer.js, the one ES module the gate's k6 script imports. */
import { join, resolve } from "node:path";
import { CliFailure } from "../../lib/cli.ts";

export const SIGNER_BUNDLE = resolve(import.meta.dir, "..", ".bin", "gate-signer.js");

export async function bundleSigner(): Promise<string> {
  const out = await Bun.build({
    entrypoints: [join(import.meta.dir, "signer.ts")],
    target: "browser",
    format: "esm",
    minify: true,
  });
  if (!out.success)
    throw new CliFailure(`cannot bundle loadtest/gate/signer.ts for k6: ${out.logs.map(String).join("; ")}`);
  await Bun.write(SIGNER_BUNDLE, await out.outputs[0]!.text());
  return SIGNER_BUNDLE;
}
