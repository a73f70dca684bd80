/**
 * A small JSON reader that keeps what JSON.parse throws away: source offsets (for protojson-style
 * "(line L:C)" errors), duplicate keys, and the exact text of numbers (int64 values beyond 2^53).
 * It reads one value at a time, like Go's encoding/json Decoder, so it also splits a body holding a
 * sequence of values (NDJSON or concatenated). Syntax errors use encoding/json's wording.
 *
 * Nesting is limited to MAX_JSON_DEPTH arrays and objects (encoding/json allows 10,000): the reader is recursive,
 * and no message of the protocol nests deeper than a few levels. Deeper input is a JsonSyntaxError, raised when the
 * first level too many opens, so a 100,000-deep body costs no more than a flat one.
 */

import { MevCommitError } from "../../lib/errors.ts";

export type JsonNode =
  | JsonObjectNode
  | JsonArrayNode
  | JsonStringNode
  | JsonNumberNode
  | JsonBooleanNode
  | JsonNullNode;

interface NodeBase {
  /** Offset of the first character in the source text (-1 when the node was built from a JS value). */
  readonly start: number;
  /** Offset just past the last character. */
  readonly end: number;
}

export interface JsonEntry {
  readonly key: string;
  /** The key token as written, quotes included (protojson quotes it in errors). */
  readonly keyRaw: string;
  readonly keyStart: number;
  readonly value: JsonNode;
}

export interface JsonObjectNode extends NodeBase {
  readonly kind: "object";
  /** Entries in source order, duplicates kept. */
  readonly entries: readonly JsonEntry[];
}
export interface JsonArrayNode extends NodeBase {
  readonly kind: "array";
  readonly items: readonly JsonNode[];
}
export interface JsonStringNode extends NodeBase {
  readonly kind: "string";
  readonly value: string;
  readonly raw: string;
}
export interface JsonNumberNode extends NodeBase {
  readonly kind: "number";
  /** The literal as written, e.g. "12345678901234567890" or "1e3". */
  readonly raw: string;
}
export interface JsonBooleanNode extends NodeBase {
  readonly kind: "boolean";
  readonly value: boolean;
  readonly raw: string;
}
export interface JsonNullNode extends NodeBase {
  readonly kind: "null";
  readonly raw: "null";
}

/** Malformed JSON. `offset` is where the reader stopped, in UTF-16 code units of the source text. */
export class JsonSyntaxError extends MevCommitError {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message, { context: { offset } });
  }
}

/** Go's quoteChar: how encoding/json names an offending character. */
function quoteChar(ch: string): string {
  if (ch === "'") return `'\\''`;
  if (ch === '"') return `'"'`;
  const quoted = JSON.stringify(ch);
  return `'${quoted.slice(1, -1)}'`;
}

const WS = new Set([" ", "\t", "\n", "\r"]);
// biome-ignore lint/suspicious/noControlCharactersInRegex: JSON strings must escape the control characters
const SPECIAL_IN_STRING = /["\\\u0000-\u001f]/g;

/** Arrays and objects nested in one another, at most. */
export const MAX_JSON_DEPTH = 64;

class Reader {
  pos: number;
  private depth = 0;
  constructor(
    readonly text: string,
    start: number,
  ) {
    this.pos = start;
  }

  fail(message: string, at = this.pos): never {
    throw new JsonSyntaxError(message, at);
  }

  eof(): never {
    this.fail("unexpected EOF", this.text.length);
  }

  invalid(context: string): never {
    const ch = String.fromCodePoint(this.text.codePointAt(this.pos)!);
    this.fail(`invalid character ${quoteChar(ch)} ${context}`);
  }

  /** Entering an array or object. */
  nest(): void {
    if (++this.depth > MAX_JSON_DEPTH) {
      this.fail(
        `invalid character ${quoteChar(this.text[this.pos]!)} exceeded max depth (at most ${MAX_JSON_DEPTH} nested arrays and objects)`,
      );
    }
  }

  skipWs(): void {
    while (this.pos < this.text.length && WS.has(this.text[this.pos]!)) this.pos++;
  }

  value(): JsonNode {
    this.skipWs();
    if (this.pos >= this.text.length) this.eof();
    const ch = this.text[this.pos]!;
    const start = this.pos;
    switch (ch) {
      case "{":
        return this.object();
      case "[":
        return this.array();
      case '"': {
        const value = this.string("in string literal");
        return { kind: "string", start, end: this.pos, value, raw: this.text.slice(start, this.pos) };
      }
      case "t":
        this.literal("true");
        return { kind: "boolean", start, end: this.pos, value: true, raw: "true" };
      case "f":
        this.literal("false");
        return { kind: "boolean", start, end: this.pos, value: false, raw: "false" };
      case "n":
        this.literal("null");
        return { kind: "null", start, end: this.pos, raw: "null" };
      default:
        if (ch === "-" || (ch >= "0" && ch <= "9")) return this.number();
        this.invalid("looking for beginning of value");
    }
  }

  literal(word: string): void {
    for (let i = 0; i < word.length; i++) {
      if (this.pos >= this.text.length) this.eof();
      if (this.text[this.pos] !== word[i]) this.invalid(`in literal ${word} (expecting ${quoteChar(word[i]!)})`);
      this.pos++;
    }
  }

  digits(): number {
    const from = this.pos;
    while (this.pos < this.text.length && this.text[this.pos]! >= "0" && this.text[this.pos]! <= "9") this.pos++;
    return this.pos - from;
  }

  number(): JsonNumberNode {
    const start = this.pos;
    const t = this.text;
    if (t[this.pos] === "-") {
      this.pos++;
      if (this.pos >= t.length) this.eof();
      if (!(t[this.pos]! >= "0" && t[this.pos]! <= "9")) this.invalid("in numeric literal");
    }
    if (t[this.pos] === "0") this.pos++;
    else this.digits();
    if (t[this.pos] === ".") {
      this.pos++;
      if (this.pos >= t.length) this.eof();
      if (this.digits() === 0) this.invalid("after decimal point in numeric literal");
    }
    if (t[this.pos] === "e" || t[this.pos] === "E") {
      this.pos++;
      if (t[this.pos] === "+" || t[this.pos] === "-") this.pos++;
      if (this.pos >= t.length) this.eof();
      if (this.digits() === 0) this.invalid("in exponent of numeric literal");
    }
    return { kind: "number", start, end: this.pos, raw: t.slice(start, this.pos) };
  }

  string(controlContext: string): string {
    const t = this.text;
    this.pos++; // opening quote
    let out = "";
    let chunk = this.pos;
    for (;;) {
      // Jump to the next quote, backslash or control character (native search: long strings cost little).
      SPECIAL_IN_STRING.lastIndex = this.pos;
      this.pos = SPECIAL_IN_STRING.test(t) ? SPECIAL_IN_STRING.lastIndex - 1 : t.length;
      if (this.pos >= t.length) this.eof();
      const ch = t[this.pos]!;
      if (ch === '"') {
        out += t.slice(chunk, this.pos);
        this.pos++;
        return out;
      }
      if (ch < " ") this.invalid(controlContext);
      if (ch !== "\\") {
        this.pos++;
        continue;
      }
      out += t.slice(chunk, this.pos);
      this.pos++;
      if (this.pos >= t.length) this.eof();
      const esc = t[this.pos]!;
      const simple: Record<string, string> = {
        '"': '"',
        "\\": "\\",
        "/": "/",
        b: "\b",
        f: "\f",
        n: "\n",
        r: "\r",
        t: "\t",
      };
      if (esc in simple) {
        out += simple[esc];
        this.pos++;
      } else if (esc === "u") {
        this.pos++;
        for (let i = 0; i < 4; i++) {
          if (this.pos + i >= t.length) {
            this.pos = t.length;
            this.eof();
          }
          if (!/[0-9a-fA-F]/.test(t[this.pos + i]!)) {
            this.pos += i;
            this.invalid("in \\u hexadecimal character escape");
          }
        }
        out += String.fromCharCode(parseInt(t.slice(this.pos, this.pos + 4), 16));
        this.pos += 4;
      } else {
        this.invalid("in string escape code");
      }
      chunk = this.pos;
    }
  }

  object(): JsonObjectNode {
    const start = this.pos;
    this.nest();
    this.pos++;
    const entries: JsonEntry[] = [];
    this.skipWs();
    if (this.pos >= this.text.length) this.eof();
    if (this.text[this.pos] === "}") {
      this.pos++;
      this.depth--;
      return { kind: "object", start, end: this.pos, entries };
    }
    for (;;) {
      this.skipWs();
      if (this.pos >= this.text.length) this.eof();
      if (this.text[this.pos] !== '"') this.invalid("looking for beginning of object key string");
      const keyStart = this.pos;
      const key = this.string("in string literal");
      const keyRaw = this.text.slice(keyStart, this.pos);
      this.skipWs();
      if (this.pos >= this.text.length) this.eof();
      if (this.text[this.pos] !== ":") this.invalid("after object key");
      this.pos++;
      const value = this.value();
      entries.push({ key, keyRaw, keyStart, value });
      this.skipWs();
      if (this.pos >= this.text.length) this.eof();
      const ch = this.text[this.pos];
      if (ch === ",") {
        this.pos++;
        continue;
      }
      if (ch === "}") {
        this.pos++;
        this.depth--;
        return { kind: "object", start, end: this.pos, entries };
      }
      this.invalid("after object key:value pair");
    }
  }

  array(): JsonArrayNode {
    const start = this.pos;
    this.nest();
    this.pos++;
    const items: JsonNode[] = [];
    this.skipWs();
    if (this.pos >= this.text.length) this.eof();
    if (this.text[this.pos] === "]") {
      this.pos++;
      this.depth--;
      return { kind: "array", start, end: this.pos, items };
    }
    for (;;) {
      items.push(this.value());
      this.skipWs();
      if (this.pos >= this.text.length) this.eof();
      const ch = this.text[this.pos];
      if (ch === ",") {
        this.pos++;
        continue;
      }
      if (ch === "]") {
        this.pos++;
        this.depth--;
        return { kind: "array", start, end: this.pos, items };
      }
      this.invalid("after array element");
    }
  }
}

/** Reads one JSON value starting at `offset` (leading whitespace skipped). */
export function readJsonValue(text: string, offset = 0): JsonNode {
  return new Reader(text, offset).value();
}

/**
 * The first JSON value of a unary request body, as grpc-gateway reads it: leading whitespace is
 * skipped, anything after the first value is ignored, and an empty (all-whitespace) body gives
 * `undefined` (grpc-gateway treats EOF as "all fields default").
 */
export function readFirstJsonValue(text: string): JsonNode | undefined {
  const reader = new Reader(text, 0);
  reader.skipWs();
  if (reader.pos >= text.length) return undefined;
  return reader.value();
}

export interface JsonSequenceItem {
  readonly node: JsonNode;
  /** The value as JSON.parse would give it (numbers as JS numbers). */
  readonly value: unknown;
  /** Offset of the value's first character. */
  readonly start: number;
  readonly end: number;
}

/**
 * Splits a body holding a sequence of JSON values: NDJSON, whitespace-separated or directly
 * concatenated (`{…}{…}`), as Go's json.Decoder reads a client-streaming grpc-gateway body.
 * A top-level array is one value (not unpacked). Malformed JSON throws JsonSyntaxError with the offset.
 */
export function splitJsonSequence(text: string): JsonSequenceItem[] {
  const items: JsonSequenceItem[] = [];
  const reader = new Reader(text, 0);
  for (;;) {
    reader.skipWs();
    if (reader.pos >= text.length) return items;
    const node = reader.value();
    items.push({ node, value: toPlainValue(node), start: node.start, end: node.end });
  }
}

/** The node as a plain JS value (last duplicate key wins, as in JSON.parse). */
export function toPlainValue(node: JsonNode): unknown {
  switch (node.kind) {
    case "object": {
      const out: Record<string, unknown> = {};
      for (const e of node.entries) out[e.key] = toPlainValue(e.value);
      return out;
    }
    case "array":
      return node.items.map(toPlainValue);
    case "string":
    case "boolean":
      return node.value;
    case "number":
      return Number(node.raw);
    case "null":
      return null;
  }
}

/** Wraps an already-parsed JS value as a node without positions (start = end = -1). */
export function nodeFromPlain(value: unknown): JsonNode {
  const pos = { start: -1, end: -1 };
  if (value === null || value === undefined) return { kind: "null", ...pos, raw: "null" };
  if (typeof value === "string") return { kind: "string", ...pos, value, raw: JSON.stringify(value) };
  if (typeof value === "number") return { kind: "number", ...pos, raw: Number.isFinite(value) ? String(value) : "NaN" };
  if (typeof value === "bigint") return { kind: "number", ...pos, raw: value.toString() };
  if (typeof value === "boolean") return { kind: "boolean", ...pos, value, raw: String(value) };
  if (Array.isArray(value)) return { kind: "array", ...pos, items: value.map(nodeFromPlain) };
  if (typeof value === "object") {
    return {
      kind: "object",
      ...pos,
      entries: Object.entries(value as Record<string, unknown>).map(([key, v]) => ({
        key,
        keyRaw: JSON.stringify(key),
        keyStart: -1,
        value: nodeFromPlain(v),
      })),
    };
  }
  return { kind: "string", ...pos, value: String(value), raw: JSON.stringify(String(value)) };
}

/** Go-style position of `offset` relative to `base`: 1-based line, 1-based column in code points. */
export function lineColumn(text: string, base: number, offset: number): { line: number; column: number } {
  const before = text.slice(base, offset);
  const lastNl = before.lastIndexOf("\n");
  let line = 1;
  for (let i = 0; i < before.length; i++) if (before.charCodeAt(i) === 10) line++;
  const tail = before.slice(lastNl + 1);
  return { line, column: [...tail].length + 1 };
}

/** A value in a JSON sequence longer than the splitter allows. */
export class JsonValueTooLongError extends MevCommitError {
  constructor(readonly limit: number) {
    super(`a JSON value in the sequence is longer than ${limit} characters`, { context: { limit } });
  }
}

const DELIMITERS = new Set(["{", "}", "[", "]", ",", ":", '"', " ", "\t", "\n", "\r"]);

/**
 * Splits text that arrives in chunks into the top-level values of a JSON sequence (NDJSON, whitespace-separated or
 * concatenated), without parsing them: it follows only nesting and strings, looks at each character once and keeps
 * its state between chunks, so a value cut across many chunks costs what it would in one (re-reading it from its
 * start on each chunk is quadratic). Each value comes out as its own text for `readJsonValue`; malformed text comes
 * out as a value too, for the reader to report. Nesting deeper than MAX_JSON_DEPTH ends the value at once (the
 * reader then reports the depth); a value longer than `maxValueLength` throws JsonValueTooLongError.
 */
export class JsonSequenceSplitter {
  /** The pieces of the unfinished value from earlier chunks. */
  private pieces: string[] = [];
  private inValue = false;
  /** Characters of the unfinished value so far. */
  private length = 0;
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** The current value is a bare number, literal or stray character: it ends at a delimiter. */
  private bare = false;

  constructor(readonly maxValueLength = Number.POSITIVE_INFINITY) {}

  /** Adds text; returns the values it completed, in order. */
  push(chunk: string): string[] {
    const out: string[] = [];
    let from = 0; // where the current value starts in this chunk (0 when it began in an earlier one)
    const finish = (end: number) => {
      out.push(this.pieces.length ? this.pieces.join("") + chunk.slice(from, end) : chunk.slice(from, end));
      this.pieces = [];
      this.inValue = false;
      this.depth = 0;
      this.inString = this.escaped = this.bare = false;
    };
    for (let i = 0; i < chunk.length; i++) {
      const ch = chunk[i]!;
      if (!this.inValue) {
        if (WS.has(ch)) continue;
        this.inValue = true;
        this.length = 0;
        from = i;
        if (ch === "{" || ch === "[") this.depth = 1;
        else if (ch === '"') this.inString = true;
        else if (ch === "}" || ch === "]" || ch === "," || ch === ":") {
          finish(i + 1);
          continue;
        } else this.bare = true;
      } else if (this.bare) {
        if (DELIMITERS.has(ch)) {
          finish(i);
          i--; // the delimiter belongs to what follows
          continue;
        }
      } else if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (ch === "\\") this.escaped = true;
        else if (ch === '"') {
          this.inString = false;
          if (this.depth === 0) {
            finish(i + 1);
            continue;
          }
        }
      } else if (ch === '"') this.inString = true;
      else if (ch === "{" || ch === "[") {
        if (++this.depth > MAX_JSON_DEPTH) {
          finish(i + 1);
          continue;
        }
      } else if ((ch === "}" || ch === "]") && --this.depth === 0) {
        finish(i + 1);
        continue;
      }
      if (++this.length > this.maxValueLength) throw new JsonValueTooLongError(this.maxValueLength);
    }
    if (this.inValue) this.pieces.push(chunk.slice(from));
    return out;
  }

  /** End of input: the unfinished value, if any (for the reader to report), else undefined. */
  end(): string | undefined {
    if (!this.inValue) return undefined;
    const rest = this.pieces.join("");
    this.pieces = [];
    this.inValue = false;
    return rest;
  }
}
