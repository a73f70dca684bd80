/**
 * grpc-js call shapes over the node's services: a unary call answers one promise, a server stream writes an
 * async iterable (waiting for the client to read: a slow reader holds the producer back, and a producer with a
 * bounded buffer, such as a notification subscription, cuts it off), a client stream is read as an async iterable.
 * A request message that did not decode (node/grpc/requestDecoding.ts) ends the call with grpc-go's status for it.
 */
import {
  Metadata,
  type ServerReadableStream,
  type ServerUnaryCall,
  type ServerWritableStream,
  type sendUnaryData,
  type UntypedHandleCall,
} from "@grpc/grpc-js";
import { decodedRequest } from "./requestDecoding.ts";
import { grpcStatusOf } from "./status.ts";

/** Unary: `run` gets the request message; its result or error is the answer. */
export function unary<Req, Res>(method: string, run: (req: Req) => Res | Promise<Res>): UntypedHandleCall {
  return (call: ServerUnaryCall<Req, Res>, done: sendUnaryData<Res>) => {
    Promise.resolve()
      .then(() => run(decodedRequest(call.request)))
      .then(
        (res) => done(null, res),
        (e) => done(grpcStatusOf(e, method)),
      );
  };
}

/** What a server-streaming method opens for one call: the messages, and `close` for when the call ends. */
export interface OpenedStream<Res> {
  messages: AsyncIterable<Res>;
  close?(): void;
}

/**
 * Server streaming: `open` gets the request and an AbortSignal that fires when the client leaves (or its deadline
 * passes). An error thrown by `open` or by the stream ends the call with that status.
 */
export function serverStream<Req, Res>(
  method: string,
  open: (req: Req, signal: AbortSignal) => OpenedStream<Res>,
): UntypedHandleCall {
  return (call: ServerWritableStream<Req, Res>) => {
    const ctrl = new AbortController();
    let stream: OpenedStream<Res> | undefined;
    const finish = () => {
      if (ctrl.signal.aborted) return;
      ctrl.abort();
      stream?.close?.();
    };
    call.on("cancelled", finish);
    call.on("close", finish);
    void (async () => {
      try {
        stream = open(decodedRequest(call.request), ctrl.signal);
        // Headers go out when the stream opens, before the first message (as the HTTP gateway does).
        call.sendMetadata(new Metadata());
        for await (const m of stream.messages) {
          if (ctrl.signal.aborted) break;
          if (!call.write(m)) await drained(call);
        }
        if (!ctrl.signal.aborted) call.end();
      } catch (e) {
        // grpc-js turns an 'error' event into the call's final status (destroy would drop it).
        if (!ctrl.signal.aborted) call.emit("error", grpcStatusOf(e, method));
      } finally {
        finish();
      }
    })();
  };
}

/** Resolves when a stream the client reads too slowly can take more, or when the call ends. */
function drained(call: ServerWritableStream<unknown, unknown>): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      call.off("drain", done);
      call.off("close", done);
      resolve();
    };
    call.on("drain", done);
    call.on("close", done);
  });
}

/** Client streaming: `run` reads the request messages as an async iterable; its result or error is the answer. */
export function clientStream<Req, Res>(
  method: string,
  run: (reqs: AsyncIterable<Req>) => Promise<Res>,
): UntypedHandleCall {
  return (call: ServerReadableStream<Req, Res>, done: sendUnaryData<Res>) => {
    run(decodedMessages(call as AsyncIterable<Req>)).then(
      (res) => done(null, res),
      (e) => {
        done(grpcStatusOf(e, method));
        call.destroy();
      },
    );
  };
}

/** A client stream's messages; one that did not decode throws its status (grpc-go's RecvMsg fails the same way). */
async function* decodedMessages<Req>(messages: AsyncIterable<Req>): AsyncIterable<Req> {
  for await (const m of messages) yield decodedRequest(m);
}
