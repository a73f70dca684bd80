/** The line `npm run load` prints before k6 starts: what the chosen profile actually runs (market.js's scenarios). */
export interface ProfileFlags {
  rate: string;
  duration: string;
  burst: string;
  subscribers: string;
  /** gate: the levels of bids in flight ("1, 8, 32") and the bids per level. */
  levels?: string;
  bids?: string;
}

export function profileHeader(profile: string, f: ProfileFlags): string {
  const rate = Number(f.rate);
  switch (profile) {
    case "gate":
      return `${f.bids} bids at each of ${f.levels} bids in flight; every bid must get a commitment from each provider, every commitment must verify`;
    case "smoke":
      return "20 bids from 2 VUs (a fixed profile: --rate and --duration do not apply)";
    case "ramp":
      return `bids from ${Math.max(1, Math.floor(rate / 5))}/s up to ${rate}/s, to ${rate * 2}/s and back to 0 over ${f.duration}`;
    case "slot-burst":
      return `${f.burst} bids at once right after each new L1 block, for ${f.duration}`;
    case "fan-out":
      return `rate ${rate}/s for ${f.duration}, ${f.subscribers} Subscribe streams held open`;
    default:
      return `rate ${rate}/s for ${f.duration}`;
  }
}
