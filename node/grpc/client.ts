/**
 * A gRPC client for one of our proto services, over @grpc/grpc-js with the codecs generated from proto/: for
 * tests, benchmarks and simulated agents. Messages are protobuf-es messages; streams are async iterables.
 * `https://` URLs dial TLS without verifying the certificate (the devnet's is self-signed), as upstream's tools do.
 */

import {
  create,
  type DescMessage,
  type DescService,
  type MessageInitShape,
  type MessageShape,
} from "@bufbuild/protobuf";
import {
  type Client,
  type ClientReadableStream,
  credentials,
  Metadata,
  makeGenericClientConstructor,
  type ServiceError,
} from "@grpc/grpc-js";
import { MevCommitError } from "../../lib/errors.ts";
import { serviceDefinition } from "./serviceDefinition.ts";

type Methods<S extends DescService> = S["method"];
type In<S extends DescService, M extends keyof Methods<S>> = Methods<S>[M] extends {
  input: infer I extends DescMessage;
}
  ? I
  : never;
type Out<S extends DescService, M extends keyof Methods<S>> = Methods<S>[M] extends {
  output: infer O extends DescMessage;
}
  ? O
  : never;

/** A failed call: the status code and text the server sent. */
export class GrpcCallError extends MevCommitError {
  constructor(
    readonly code: number,
    readonly details: string,
    readonly method: string,
  ) {
    super(`${method}: ${code} ${details}`, { context: { method, code } });
  }
}

const callError = (e: ServiceError, method: string) => new GrpcCallError(e.code, e.details, method);

/** `http://host:port` or `https://host:port` (also bare `host:port`, plaintext) → grpc-js target and credentials. */
export function grpcTarget(url: string) {
  const m = /^(?:(https?):\/\/)?([^/]+)\/?$/.exec(url);
  if (!m) throw new Error(`not a gRPC URL: ${url} (expected http://host:port or https://host:port)`);
  const tls = m[1] === "https";
  const address = m[2]!;
  // Bun's TLS refuses an IP address as the server name (SNI): name the certificate's host instead.
  const ipHost = /^(\[.*\]|[0-9.]+)(:\d+)?$/.test(address);
  return {
    address,
    tls,
    credentials: tls
      ? credentials.createSsl(null, null, null, { rejectUnauthorized: false })
      : credentials.createInsecure(),
    options: tls && ipHost ? { "grpc.ssl_target_name_override": "localhost" } : {},
  };
}

export class GrpcClient<S extends DescService> {
  private readonly client: Client & Record<string, (...args: unknown[]) => unknown>;

  constructor(
    readonly service: S,
    readonly url: string,
  ) {
    const t = grpcTarget(url);
    const Ctor = makeGenericClientConstructor(serviceDefinition(service), service.typeName);
    this.client = new Ctor(t.address, t.credentials, t.options) as never;
  }

  private method(name: keyof Methods<S>) {
    const m = this.service.method[name as string];
    if (!m) throw new Error(`${this.service.typeName} has no method ${String(name)}`);
    return m;
  }

  unary<M extends keyof Methods<S>>(
    name: M,
    req: MessageInitShape<In<S, M>> = {} as never,
    timeoutMs = 60_000,
  ): Promise<MessageShape<Out<S, M>>> {
    const m = this.method(name);
    return new Promise((resolve, reject) =>
      this.client[m.name]!(
        create(m.input, req as never),
        new Metadata(),
        { deadline: Date.now() + timeoutMs },
        (e: ServiceError | null, res: never) => (e ? reject(callError(e, m.name)) : resolve(res)),
      ),
    );
  }

  /**
   * A server stream: iterate it for its messages in order (a final error status rejects the iteration); `opened`
   * resolves when the server's headers arrive (the node sends them as the stream opens). `signal` cancels the call.
   */
  serverStream<M extends keyof Methods<S>>(
    name: M,
    req: MessageInitShape<In<S, M>> = {} as never,
    signal?: AbortSignal,
  ) {
    const m = this.method(name);
    const call = this.client[m.name]!(create(m.input, req as never)) as ClientReadableStream<MessageShape<Out<S, M>>>;
    const opened = new Promise<void>((resolve, reject) => {
      call.once("metadata", () => resolve());
      call.once("error", (e: ServiceError) => reject(callError(e, m.name)));
    });
    opened.catch(() => {}); // also seen by the iteration
    const cancel = () => call.cancel();
    signal?.addEventListener("abort", cancel, { once: true });
    async function* messages(): AsyncGenerator<MessageShape<Out<S, M>>> {
      try {
        for await (const msg of call) yield msg;
      } catch (e) {
        if (signal?.aborted) return;
        throw callError(e as ServiceError, m.name);
      } finally {
        signal?.removeEventListener("abort", cancel);
        call.cancel();
      }
    }
    return Object.assign(messages(), { opened, cancel });
  }

  /** A client stream: `send` each message, then `close` for the answer (or the error status). */
  clientStream<M extends keyof Methods<S>>(name: M) {
    const m = this.method(name);
    let settle!: { resolve: (r: MessageShape<Out<S, M>>) => void; reject: (e: Error) => void };
    const answer = new Promise<MessageShape<Out<S, M>>>((resolve, reject) => (settle = { resolve, reject }));
    answer.catch(() => {}); // observed through close()
    const call = this.client[m.name]!((e: ServiceError | null, res: MessageShape<Out<S, M>>) =>
      e ? settle.reject(callError(e, m.name)) : settle.resolve(res),
    ) as {
      write(msg: unknown, cb?: () => void): boolean;
      end(): void;
      cancel(): void;
    };
    return {
      /** Resolves once the message is handed to the transport. */
      send: (msg: MessageInitShape<In<S, M>>) =>
        new Promise<void>((r) => call.write(create(m.input, msg as never), () => r())),
      close: () => {
        call.end();
        return answer;
      },
      cancel: () => call.cancel(),
      /** Settles when the server answers, even before `close` (an error status ends the call early). */
      answer,
    };
  }

  close(): void {
    this.client.close();
  }
}
