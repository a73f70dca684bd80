/**
 * gRPC primitives of the suite (TRANSPORT=grpc): the API's services read from descriptor sets `npm run proto` builds
 * (so the suite carries its own copy of the wire and imports nothing from node/), per protocol version: protocol
 * v1.1's features/gen/api.binpb from proto/, and for v1.2 features/gen/api-v1.2.binpb from proto/v1.2 (its bidder and
 * provider services) over api.binpb (the services v1.2 keeps unchanged); calls over @grpc/grpc-js, and the protocol's JSON mapping of every message (grpc-gateway's, api-behaviour
 * §0.2: every field emitted, null for an unset message or wrapper), so that steps judge the same values whatever the
 * transport. Every call belongs to a scenario scope and is cancelled when the scenario ends.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  createFileRegistry,
  type DescMessage,
  type DescService,
  fromBinary,
  fromJson,
  isFieldSet,
  type JsonValue,
  type Message,
  toBinary,
  toJson,
} from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import {
  type Client,
  credentials,
  status as grpcStatus,
  Metadata,
  makeGenericClientConstructor,
  type ServiceError,
} from "@grpc/grpc-js";
import { MevCommitError } from "../../../lib/errors.ts";
import type { ProtocolRules } from "../protocolRules.ts";
import type { ProtocolVersion } from "../protocolVersion.ts";
import type { MessageStream, StatusError, Unary } from "./api.ts";
import { RUN_SCOPE, type ScenarioScope } from "./scope.ts";
import { Wakeup } from "./wakeup.ts";

const descriptorFile = (name: string) => join(import.meta.dir, "..", "..", "gen", name);
const registryOf = (name: string) =>
  createFileRegistry(fromBinary(FileDescriptorSetSchema, readFileSync(descriptorFile(name))));

/** The descriptor sets a protocol version's services are looked up in, first match wins. */
const DESCRIPTORS: Record<ProtocolVersion, string[]> = {
  "v1.1": ["api.binpb"],
  "v1.2": ["api-v1.2.binpb", "api.binpb"],
};
const registries = new Map<string, ReturnType<typeof registryOf>>();
const registry = (name: string) => {
  let r = registries.get(name);
  if (!r) registries.set(name, (r = registryOf(name)));
  return r;
};

/** A JSON text that the transport cannot turn into the request message (the gateway would refuse it as JSON). */
export class NotAMessageError extends MevCommitError {}

/** A service of the API of a protocol version (its rules), from its descriptor sets. */
export function service(typeName: string, rules: ProtocolRules): DescService {
  for (const name of DESCRIPTORS[rules.version]) {
    const s = registry(name).getService(typeName);
    if (s) return s;
  }
  const files = DESCRIPTORS[rules.version].map((n) => `features/gen/${n}`).join(", ");
  throw new Error(`no service ${typeName} in protocol ${rules.version}'s ${files} (run \`npm run proto\`)`);
}

/** The value of a field of a message: a oneof member's value is held under its oneof's name. */
function fieldValue(msg: Message, f: DescMessage["fields"][number]): unknown {
  const m = msg as unknown as Record<string, unknown>;
  if (!f.oneof) return m[f.localName];
  const o = m[f.oneof.localName] as { case?: string; value?: unknown } | undefined;
  return o?.case === f.localName ? o.value : undefined;
}

/**
 * A message in the protocol's JSON mapping: every field, null for an unset message or wrapper (grpc-gateway's); an
 * unset member of a oneof is left out, as protojson leaves it out.
 */
export function jsonOf(desc: DescMessage, msg: Message): JsonValue {
  const json = toJson(desc, msg, { alwaysEmitImplicit: true }) as Record<string, JsonValue>;
  if (desc.typeName.startsWith("google.protobuf.")) return json;
  for (const f of desc.fields) {
    if (f.oneof && !isFieldSet(msg, f)) continue;
    if (f.fieldKind === "message" && !isFieldSet(msg, f)) json[f.jsonName] = null;
    else if (f.fieldKind === "message" && !f.message.typeName.startsWith("google.protobuf."))
      json[f.jsonName] = jsonOf(f.message, fieldValue(msg, f) as Message);
    else if (f.fieldKind === "list" && f.listKind === "message" && !f.message.typeName.startsWith("google.protobuf."))
      json[f.jsonName] = ((fieldValue(msg, f) as Message[] | undefined) ?? []).map((m) => jsonOf(f.message, m));
  }
  return json;
}

/** A request message from JSON (both spellings of a name, unknown fields ignored, as the gateway reads bodies). */
export function messageOf(desc: DescMessage, json: unknown): Message {
  try {
    // Absent fields (undefined) are left out, as a JSON body would leave them out.
    return fromJson(desc, JSON.parse(JSON.stringify(json ?? {})) as JsonValue, { ignoreUnknownFields: true });
  } catch (e) {
    throw new NotAMessageError(`not a ${desc.typeName}: ${(e as Error).message}`);
  }
}

/** `http://host:port`, `https://host:port` (TLS, certificate not verified: the devnet's is self-signed) or `host:port`. */
function target(url: string) {
  const m = /^(?:(https?):\/\/)?([^/]+)\/?$/.exec(url);
  if (!m) throw new Error(`not a gRPC URL: ${url}`);
  const tls = m[1] === "https";
  const ipHost = /^(\[.*\]|[0-9.]+)(:\d+)?$/.test(m[2]!);
  return {
    address: m[2]!,
    credentials: tls
      ? credentials.createSsl(null, null, null, { rejectUnauthorized: false })
      : credentials.createInsecure(),
    // Bun's TLS refuses an IP address as the server name.
    options: tls && ipHost ? { "grpc.ssl_target_name_override": "localhost" } : {},
  };
}

type Call = Record<string, (...args: unknown[]) => unknown>;
const clients = new Map<string, Client & Call>();

/** One grpc-js client per service and URL for the run (channels are reused across scenarios). */
function clientOf(svc: DescService, url: string): Client & Call {
  const key = `${svc.typeName} ${url}`;
  let c = clients.get(key);
  if (!c) {
    const def: Record<string, unknown> = {};
    for (const m of svc.methods)
      def[m.name] = {
        path: `/${svc.typeName}/${m.name}`,
        requestStream: m.methodKind === "client_streaming",
        responseStream: m.methodKind === "server_streaming",
        requestSerialize: (x: Message) => Buffer.from(toBinary(m.input, x)),
        requestDeserialize: (b: Buffer) => fromBinary(m.input, b),
        responseSerialize: (x: Message) => Buffer.from(toBinary(m.output, x)),
        responseDeserialize: (b: Buffer) => fromBinary(m.output, b),
      };
    const t = target(url);
    const Ctor = makeGenericClientConstructor(def as never, svc.typeName);
    c = new Ctor(t.address, t.credentials, t.options) as Client & Call;
    clients.set(key, c);
  }
  return c;
}

/**
 * Drops the channels to a URL whose node did not answer: a node restarted on the same port is then reached on a
 * fresh channel at once, where the old one would sit in grpc-js's reconnect back-off.
 */
function forgetChannels(url: string): void {
  for (const [key, c] of clients) {
    if (!key.endsWith(` ${url}`)) continue;
    c.close();
    clients.delete(key);
  }
}

/**
 * Runs a call; when nothing answered at the address (the request never reached a node), runs it once more on a fresh
 * channel, so a node that was just restarted is not reported down because of the old channel's back-off.
 */
async function onFreshChannelIfUnreachable(url: string, run: () => Promise<Unary>): Promise<Unary> {
  try {
    return await run();
  } catch (e) {
    if (!(e instanceof GrpcCallError) || !e.connectionFailed) throw e;
    forgetChannels(url);
    return run();
  }
}

/** Closes every channel the run opened. */
export function closeGrpcClients(): void {
  for (const c of clients.values()) c.close();
  clients.clear();
}

/** A call that got no answer because nothing answered at the address. */
function isUnreachable(e: ServiceError, gotHeaders: boolean): boolean {
  return (
    !gotHeaders &&
    e.code === grpcStatus.UNAVAILABLE &&
    /ECONNREFUSED|No connection established|connect|Connection dropped/i.test(e.details ?? "")
  );
}

const statusOf = (e: ServiceError): StatusError => ({ code: e.code, message: e.details ?? "", details: [] });

function method(svc: DescService, name: string) {
  const m = svc.methods.find((x) => x.name === name);
  if (!m) throw new Error(`${svc.typeName} has no method ${name}`);
  return m;
}

function unaryResult(what: string, value: JsonValue | undefined, error: StatusError | undefined): Unary {
  return {
    value,
    error,
    http: undefined,
    describe: () =>
      error
        ? `${what} answered gRPC status ${error.code} ${JSON.stringify(error.message)}`
        : `${what} answered ${JSON.stringify(value).slice(0, 600)}`,
  };
}

/** A unary call with a request in the JSON mapping; a status other than OK is the answer's error. */
export function unary(
  svc: DescService,
  url: string,
  name: string,
  request: unknown,
  scope: ScenarioScope,
  timeoutMs = 60_000,
): Promise<Unary> {
  return onFreshChannelIfUnreachable(url, () => unaryOnce(svc, url, name, request, scope, timeoutMs));
}

function unaryOnce(
  svc: DescService,
  url: string,
  name: string,
  request: unknown,
  scope: ScenarioScope,
  timeoutMs: number,
): Promise<Unary> {
  const m = method(svc, name);
  const req = scope.request();
  const what = `${svc.typeName}/${name}`;
  return new Promise<Unary>((resolve, reject) => {
    const call = clientOf(svc, url)[name]!(
      messageOf(m.input, request),
      new Metadata(),
      { deadline: Date.now() + timeoutMs },
      (e: ServiceError | null, res: Message) => {
        req.done();
        if (!e) resolve(unaryResult(what, jsonOf(m.output, res), undefined));
        else if (req.signal.aborted) reject(new GrpcCallError(what, `cancelled: ${String(req.signal.reason)}`, false));
        else if (isUnreachable(e, false)) reject(new GrpcCallError(what, e.details, true));
        else resolve(unaryResult(what, undefined, statusOf(e)));
      },
    ) as { cancel(): void };
    req.signal.addEventListener("abort", () => call.cancel(), { once: true });
  });
}

/** A call that got no gRPC status from the node: nothing answered, or the scenario ended. */
export class GrpcCallError extends MevCommitError {
  constructor(
    readonly what: string,
    detail: string,
    readonly connectionFailed: boolean,
  ) {
    super(`${what} failed: ${detail}`, { context: { what, connectionFailed } });
  }
}

/** A client stream: the messages (JSON mapping) are sent in order, then the call is half-closed for its answer. */
export function clientStream(
  svc: DescService,
  url: string,
  name: string,
  requests: unknown[],
  scope: ScenarioScope,
  timeoutMs = 60_000,
): Promise<Unary> {
  return onFreshChannelIfUnreachable(url, () => clientStreamOnce(svc, url, name, requests, scope, timeoutMs));
}

function clientStreamOnce(
  svc: DescService,
  url: string,
  name: string,
  requests: unknown[],
  scope: ScenarioScope,
  timeoutMs: number,
): Promise<Unary> {
  const m = method(svc, name);
  const messages = requests.map((r) => messageOf(m.input, r));
  const req = scope.request();
  const what = `${svc.typeName}/${name}`;
  return new Promise<Unary>((resolve, reject) => {
    const call = clientOf(svc, url)[name]!(
      new Metadata(),
      { deadline: Date.now() + timeoutMs },
      (e: ServiceError | null, res: Message) => {
        req.done();
        if (!e) resolve(unaryResult(what, jsonOf(m.output, res), undefined));
        else if (req.signal.aborted) reject(new GrpcCallError(what, `cancelled: ${String(req.signal.reason)}`, false));
        else if (isUnreachable(e, false)) reject(new GrpcCallError(what, e.details, true));
        else resolve(unaryResult(what, undefined, statusOf(e)));
      },
    ) as { write(m: Message): boolean; end(): void; cancel(): void };
    req.signal.addEventListener("abort", () => call.cancel(), { once: true });
    for (const msg of messages) call.write(msg);
    call.end();
  });
}

/**
 * A server stream read in the background, shaped like the gateway's: each message is a `{"result":…}` line and a
 * final error status is an `{"error":{code,message,details}}` line, so the steps judge one shape on both
 * transports. Status and content type are HTTP's and stay undefined here.
 */
export class GrpcStream implements MessageStream {
  readonly transport = "grpc" as const;
  readonly lines: unknown[] = [];
  ended = false;
  endReason = "";
  connectionFailed = false;
  firstResultMs: number | undefined;
  endMs: number | undefined;
  readonly status = undefined;
  readonly contentType = undefined;
  readonly done: Promise<void>;

  private readonly t0 = performance.now();
  private gotHeaders = false;
  private errorStatus = false;
  private closedByUs = false;
  private readonly changes = new Wakeup();
  private readonly heads = new Wakeup();
  private readonly call: { cancel(): void; on(ev: string, f: (...a: never[]) => void): void };

  constructor(
    readonly what: string,
    svc: DescService,
    url: string,
    name: string,
    request: Message,
    scope: ScenarioScope = RUN_SCOPE,
  ) {
    const m = method(svc, name);
    const req = scope.request();
    this.call = clientOf(svc, url)[name]!(request, new Metadata()) as never;
    req.signal.addEventListener("abort", () => this.call.cancel(), { once: true });
    this.done = new Promise<void>((resolve) => {
      const finish = (reason: string) => {
        if (this.ended) return;
        this.endReason = reason;
        this.endMs = performance.now() - this.t0;
        this.ended = true;
        req.done();
        this.wake();
        resolve();
      };
      this.call.on("metadata", () => {
        this.gotHeaders = true;
        this.wake();
      });
      this.call.on("data", (msg: Message) => {
        this.gotHeaders = true;
        if (this.firstResultMs === undefined) this.firstResultMs = performance.now() - this.t0;
        this.lines.push({ result: jsonOf(m.output, msg) });
        this.wake();
      });
      this.call.on("error", (e: ServiceError) => {
        if (this.closedByUs) return finish("closed");
        if (req.signal.aborted) return finish(`broken: ${String(req.signal.reason)}`);
        if (isUnreachable(e, this.gotHeaders)) {
          this.connectionFailed = true;
          forgetChannels(url);
          return finish(`broken: ${e.details}`);
        }
        this.errorStatus = true;
        this.lines.push({ error: statusOf(e) });
        finish("end");
      });
      this.call.on("end", () => finish("end"));
    });
  }

  get ok(): boolean {
    return this.ended ? !this.errorStatus : this.gotHeaders;
  }

  get text(): string {
    return this.lines.map((l) => JSON.stringify(l)).join("\n") + (this.lines.length ? "\n" : "");
  }

  private wake(): void {
    this.changes.wake();
    this.heads.wake();
  }

  changed(ms: number): Promise<void> {
    return this.changes.wait(ms);
  }

  /** Waits for the stream's headers (the node sends them as it opens the stream): true when they came in time. */
  async head(ms: number): Promise<boolean> {
    if (this.gotHeaders) return true;
    if (this.ended) return false;
    await this.heads.wait(ms);
    return this.gotHeaders;
  }

  async lineAt(index: number): Promise<unknown | undefined> {
    for (;;) {
      if (this.lines.length > index) return this.lines[index];
      if (this.ended) return undefined;
      await this.changed(60_000);
    }
  }

  close(): void {
    if (this.ended) return;
    this.closedByUs = true;
    this.call.cancel();
  }

  describe(max = 2000): string {
    const t = this.text;
    const body = t.length > max ? `${t.slice(0, max)}…` : t;
    return `gRPC ${this.what}${this.gotHeaders ? "" : " (no headers)"}, messages ${JSON.stringify(body)}${this.ended ? `, ${this.endReason === "end" ? "ended by the node" : this.endReason}` : ", still open"}`;
  }
}
