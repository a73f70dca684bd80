/**
 * js-libp2p's loggers when its debug output is off. js-libp2p makes a logger for every stream it opens or accepts
 * (yamux's `newScope`, multistream-select's), and @libp2p/logger builds each through the debug package (name
 * parsing, a terminal check) even when nothing is printed: ~5 % of the CPU of a bid's hop. With DEBUG unset nothing
 * is printed either way, so one shared logger that does nothing stands for all of them; with DEBUG set, libp2p's
 * own loggers print as usual.
 */
import type { ComponentLogger, Logger } from "@libp2p/interface";

const quiet: Logger = Object.assign(() => {}, {
  error: () => {},
  trace: () => {},
  enabled: false,
  newScope: (): Logger => quiet,
});

/** The `logger` option of createLibp2p: ours with DEBUG unset, libp2p's own (none given) with it set. */
export function libp2pLoggerOption(): { logger?: ComponentLogger } {
  return process.env.DEBUG ? {} : { logger: { forComponent: () => quiet } };
}
