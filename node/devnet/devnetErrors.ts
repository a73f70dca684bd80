import { FailedPreconditionError } from "../protocol/grpcCodes.ts";
import { ConfigError } from "./config.ts";

/** The devnet was started with --no-nodes and has no node of its own to answer for. */
export class NoNodesError extends FailedPreconditionError {
  constructor(what: string) {
    super(`${what}: the devnet runs no nodes of its own (--no-nodes)`);
  }
}

/** `--network netns` on a machine where network namespaces cannot be made (not root, no iproute2, …). */
export class NetnsUnavailableError extends ConfigError {
  constructor(why: string) {
    super(
      `--network netns cannot run here: ${why}. Use --network processes for one process per node on this host's own network`,
    );
  }
}

/** A devnet whose nodes run as processes has no node objects in its own process to hand out. */
export class NodesInProcessesError extends FailedPreconditionError {
  constructor(what: string) {
    super(
      `${what}: the devnet's nodes run in processes of their own (--network processes|netns); reach them through their URLs`,
    );
  }
}
