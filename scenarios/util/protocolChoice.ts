/**
 * Which protocol a command (simulate, load, bid, the benchmarks) runs: `--protocol`, or the target file's
 * `"protocol"` when there is one (absent means v1.1). The file wins; a flag that disagrees with it is an error,
 * never silently ignored.
 */
import { CliUsageError } from "../../lib/cli.ts";
import {
  DEFAULT_PROTOCOL_VERSION,
  type ProtocolVersion,
  parseProtocolVersion,
  UnknownProtocolVersionError,
} from "../../node/protocol/protocolVersion.ts";

/** `flag` is `--protocol`'s text (undefined when not given); `target` the parsed target file, when one is used. */
export function chooseProtocol(
  flag: string | undefined,
  target?: { protocol?: unknown; name?: string },
  targetFile?: string,
): ProtocolVersion {
  let fromFlag: ProtocolVersion | undefined;
  try {
    fromFlag = flag === undefined ? undefined : parseProtocolVersion(flag);
  } catch (e) {
    if (e instanceof UnknownProtocolVersionError) throw new CliUsageError(`--protocol: ${e.message}`, { cause: e });
    throw e;
  }
  if (!target) return fromFlag ?? DEFAULT_PROTOCOL_VERSION;
  const where = targetFile ?? target.name ?? "the target file";
  let fromFile: ProtocolVersion;
  try {
    fromFile = parseProtocolVersion(target.protocol as string | undefined);
  } catch (e) {
    if (e instanceof UnknownProtocolVersionError) throw new CliUsageError(`${where}: ${e.message}`, { cause: e });
    throw e;
  }
  if (fromFlag !== undefined && fromFlag !== fromFile)
    throw new CliUsageError(
      `--protocol ${fromFlag} disagrees with ${where}, which says ${fromFile}${target.protocol === undefined ? ' (no "protocol": v1.1)' : ""}; drop --protocol or use a target of ${fromFlag}`,
    );
  return fromFile;
}
