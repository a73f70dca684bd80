import { MevCommitError } from "../../lib/errors.ts";

/** A finished HTTP exchange, as the suite inspects it. */
export interface HttpResult {
  status: number;
  headers: Headers;
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: unknown;
}

export class HttpCallError extends MevCommitError {
  constructor(
    readonly method: string,
    readonly url: string,
    cause: unknown,
  ) {
    super(`${method} ${url} failed: ${(cause as Error)?.message ?? cause}`, { cause, context: { method, url } });
  }
}

export interface CallOptions {
  /** A value to send as JSON, or a raw string sent as is. */
  body?: unknown;
  headers?: Record<string, string>;
  timeoutMs?: number;
}

export async function call(method: string, url: string, opts: CallOptions = {}): Promise<HttpResult> {
  const headers: Record<string, string> = { ...opts.headers };
  let body: string | undefined;
  if (opts.body !== undefined) {
    body = typeof opts.body === "string" ? opts.body : JSON.stringify(opts.body);
    headers["content-type"] ??= "application/json";
  }
  let res: Response;
  try {
    res = await fetch(url, { method, body, headers, signal: AbortSignal.timeout(opts.timeoutMs ?? 60_000) });
  } catch (e) {
    throw new HttpCallError(method, url, e);
  }
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}
