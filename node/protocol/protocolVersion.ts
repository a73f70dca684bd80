/**
 * The protocol versions' names, for the node's CLI parsers and tables keyed by version. What differs between the
 * versions is in rules.ts (`ProtocolRules`), built once where the version is parsed and handed down.
 */
export {
  DEFAULT_PROTOCOL_VERSION,
  isProtocolVersion,
  PROTOCOL_VERSIONS,
  type ProtocolVersion,
  parseProtocolVersion,
  UnknownProtocolVersionError,
} from "../../lib/protocolVersion.ts";
