/** Tags that say what a scenario needs beyond the interface, and the target capabilities each one needs. */
export const CAPABILITY_TAGS: Record<string, string[]> = {
  "@sim": ["sim-control"],
  "@sim-nodes": ["sim-control", "sim-nodes"],
  "@sim-kill": ["sim-control", "sim-kill"],
  "@sim-faults": ["sim-control", "sim-faults"],
  "@openapi": ["openapi"],
  "@beacon": ["beacon"],
  "@grpc": ["grpc"],
};
