import type { BidOutcomes, BidRecord } from "./bidOutcomes.ts";
import type { ChainView } from "./chainView.ts";

/** A notification as a node's Subscribe stream carries it. */
export interface NoteEvent {
  topic: string;
  value: Record<string, unknown>;
}

/** Opens a feed of a bidder node's notifications; the function returned closes it. */
export type NotificationFeed = (on: (n: NoteEvent) => void) => () => void;

/** Columns the page fills only from the reference devnet's own records (marked as such against another target). */
export const DEVNET_ONLY = [
  "bid outcomes per provider (committed, refused with its reason, rejected)",
  "bids without a commitment",
  "time to the first commitment",
];

/** What the explorer shows, wherever it comes from. */
export interface ExplorerSources {
  /** "devnet": the reference devnet's control API; "target": another implementation's chains and public API. */
  mode: "devnet" | "target";
  chain: ChainView;
  /** Each bid's per-provider outcomes (only the reference devnet records them). */
  bids?: BidOutcomes;
  notifications?: NotificationFeed;
  /** Nodes, chains and contracts, for the page's header. */
  info(): Promise<Record<string, unknown>> | Record<string, unknown>;
}

/** Notifications kept for a page that opens later. */
const KEPT_NOTES = 200;

/** JSON that carries bigints as decimal strings. */
export function toJson(v: unknown): string {
  return JSON.stringify(v, (_, x) => (typeof x === "bigint" ? x.toString() : x));
}

/**
 * The explorer's live stream (server-sent events): a snapshot first, then every change in batches: `bids`,
 * `chain` (blocks, commitments, deposits, providers) and `note` (the bidder's notifications). The bidder's
 * notifications are subscribed to only while a page is open.
 */
export class ExplorerHub {
  private readonly clients = new Set<(event: string, data: string) => void>();
  private readonly notes: (NoteEvent & { at: number })[] = [];
  private closeNotes: (() => void) | undefined;
  private readonly unsubscribe: (() => void)[] = [];

  constructor(readonly sources: ExplorerSources) {
    // Changes are put in JSON only while a page is open (a devnet under load changes every few milliseconds).
    this.unsubscribe.push(sources.chain.subscribe((c) => this.clients.size && this.send("chain", toJson(c))));
    if (sources.bids)
      this.unsubscribe.push(sources.bids.subscribe((b) => this.clients.size && this.send("bids", toJson(b))));
  }

  async snapshot(): Promise<Record<string, unknown>> {
    return {
      mode: this.sources.mode,
      devnetOnly: this.sources.bids ? [] : DEVNET_ONLY,
      info: await this.sources.info(),
      bids: this.sources.bids?.list({ limit: 500 }) ?? [],
      ...this.sources.chain.snapshot(),
      notes: this.notes,
    };
  }

  /** A text/event-stream response that lives until the client leaves. */
  stream(): Response {
    let client: ((event: string, data: string) => void) | undefined;
    let keepAlive: ReturnType<typeof setInterval> | undefined;
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      start: async (ctrl) => {
        const write = (text: string) => {
          try {
            ctrl.enqueue(encoder.encode(text));
          } catch {
            this.leave(client);
          }
        };
        client = (event, data) => write(`event: ${event}\ndata: ${data}\n\n`);
        this.join(client);
        write(`event: snapshot\ndata: ${toJson(await this.snapshot())}\n\n`);
        keepAlive = setInterval(() => write(": keep-alive\n\n"), 15_000);
      },
      cancel: () => {
        clearInterval(keepAlive);
        this.leave(client);
      },
    });
    return new Response(body, { headers: { "content-type": "text/event-stream", "cache-control": "no-store" } });
  }

  /** Everything the page knows that matches a bid digest, commitment digest or index, transaction hash or address. */
  search(q: string): Record<string, unknown> {
    const key = q.trim().toLowerCase();
    const bare = key.replace(/^0x/, "");
    const chain = this.sources.chain;
    const bid = this.sources.bids?.get(key);
    const bids: BidRecord[] = bid
      ? [bid]
      : (this.sources.bids
          ?.list({ limit: 10_000 })
          .filter(
            (b) =>
              b.bidder === key || b.txnHash.split(",").includes(bare) || b.providers.some((p) => p.provider === key),
          )
          .slice(0, 200) ?? []);
    const commitments = [...chain.commitments.values()].filter(
      (c) =>
        c.digest === key ||
        c.index === key ||
        c.provider === key ||
        c.bidder === key ||
        (c.txnHash?.split(",").includes(bare) ?? false) ||
        [c.stored?.tx, c.opened?.tx, c.settled?.tx, c.slashed?.tx].includes(key),
    );
    const blocks = [...chain.blocks.values()].filter((b) => b.winner === key || b.tx === key || b.number === key);
    const deposits = [...chain.deposits.values()].filter((d) => d.bidder === key);
    const providers = [...chain.providers.values()].filter((p) => p.provider === key);
    return { query: q, bids, commitments: commitments.slice(-200), blocks: blocks.slice(-200), deposits, providers };
  }

  stop(): void {
    for (const u of this.unsubscribe) u();
    this.closeNotes?.();
    this.clients.clear();
  }

  private join(client: (event: string, data: string) => void): void {
    this.clients.add(client);
    if (!this.closeNotes && this.sources.notifications)
      this.closeNotes = this.sources.notifications((n) => {
        const note = { ...n, at: Date.now() };
        this.notes.push(note);
        if (this.notes.length > KEPT_NOTES) this.notes.shift();
        this.send("note", toJson(note));
      });
  }

  private leave(client: ((event: string, data: string) => void) | undefined): void {
    if (!client || !this.clients.delete(client)) return;
    if (!this.clients.size) {
      this.closeNotes?.();
      this.closeNotes = undefined;
    }
  }

  private send(event: string, data: string): void {
    for (const c of this.clients) c(event, data);
  }
}
