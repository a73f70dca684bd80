/**
 * HTTP primitives of the suite: one unary exchange read to its end, and its errors. Every request belongs to a
 * scenario scope (scope.ts) and is aborted when the scenario ends.
 */

import { MevCommitError } from "../../../lib/errors.ts";
import { RUN_SCOPE, type ScenarioScope } from "./scope.ts";

/** A finished HTTP exchange, as the suite inspects it. */
export interface HttpResult {
  status: number;
  headers: Headers;
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: unknown;
}

/** A request that got no HTTP answer at all: refused, reset, timed out or aborted. */
export class HttpCallError extends MevCommitError {
  /** True when nothing answered at the address (the target may be down), false for a timeout or an abort. */
  readonly connectionFailed: boolean;
  constructor(
    readonly method: string,
    readonly url: string,
    cause: unknown,
  ) {
    super(`${method} ${url} failed: ${describeFetchError(cause)}`, { cause, context: { method, url } });
    this.connectionFailed = isConnectionFailure(cause);
  }
}

/** Node and Bun name a refused or broken connection in several ways; all mean "nothing answered there". */
export function isConnectionFailure(e: unknown): boolean {
  const text = `${(e as { code?: string })?.code ?? ""} ${(e as Error)?.message ?? e} ${(e as { cause?: { code?: string } })?.cause?.code ?? ""}`;
  return /ECONNREFUSED|ECONNRESET|ConnectionRefused|ConnectionClosed|socket connection was closed|Unable to connect|EPIPE|FailedToOpenSocket/i.test(
    text,
  );
}

export function describeFetchError(e: unknown): string {
  const err = e as Error & { code?: string };
  if (err?.name === "TimeoutError") return "no answer in time";
  return `${err?.message ?? e}${err?.code && !String(err.message).includes(err.code) ? ` (${err.code})` : ""}`;
}

export interface CallOptions {
  /** A value sent as JSON, or a string sent as is. */
  body?: unknown;
  headers?: Record<string, string>;
  timeoutMs?: number;
  /** The scenario the request belongs to (default: the run). */
  scope?: ScenarioScope;
}

/** Sends one request and reads the whole answer. Fails only when no HTTP answer came (HttpCallError). */
export async function call(method: string, url: string, opts: CallOptions = {}): Promise<HttpResult> {
  const headers: Record<string, string> = { ...opts.headers };
  let body: string | undefined;
  if (opts.body !== undefined) {
    body = typeof opts.body === "string" ? opts.body : JSON.stringify(opts.body);
    headers["content-type"] ??= "application/json";
  }
  const req = (opts.scope ?? RUN_SCOPE).request();
  const timer = setTimeout(() => req.abort(new DOMException("timeout", "TimeoutError")), opts.timeoutMs ?? 60_000);
  try {
    const res = await fetch(url, { method, body, headers, signal: req.signal });
    const text = await res.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, text, json };
  } catch (e) {
    throw new HttpCallError(method, url, req.signal.aborted ? (req.signal.reason ?? e) : e);
  } finally {
    clearTimeout(timer);
    req.done();
  }
}
