import { describe, expect, test } from "bun:test";
import {
  JsonSequenceSplitter,
  JsonSyntaxError,
  JsonValueTooLongError,
  lineColumn,
  MAX_JSON_DEPTH,
  readFirstJsonValue,
  readJsonValue,
  splitJsonSequence,
} from "./jsonText.ts";

function syntaxError(text: string): JsonSyntaxError {
  try {
    splitJsonSequence(text);
  } catch (err) {
    expect(err).toBeInstanceOf(JsonSyntaxError);
    return err as JsonSyntaxError;
  }
  throw new Error("expected a syntax error");
}

describe("splitJsonSequence", () => {
  test("NDJSON, concatenated, whitespace-separated, empty", () => {
    expect(splitJsonSequence('{"a":1}\n{"b":2}\n').map((i) => i.value)).toEqual([{ a: 1 }, { b: 2 }]);
    expect(splitJsonSequence('{"a":1}{"b":2}').map((i) => i.value)).toEqual([{ a: 1 }, { b: 2 }]);
    expect(splitJsonSequence(' \t{"a":[1,2]}  \r\n {"b":{"c":null}} ').map((i) => i.value)).toEqual([
      { a: [1, 2] },
      { b: { c: null } },
    ]);
    expect(splitJsonSequence("")).toEqual([]);
    expect(splitJsonSequence("  \n")).toEqual([]);
  });

  test("items carry their offsets", () => {
    const items = splitJsonSequence('{"a":1}\n  {"b":2}');
    expect(items.map((i) => [i.start, i.end])).toEqual([
      [0, 7],
      [10, 17],
    ]);
  });

  test("a top-level array is one value, not unpacked", () => {
    expect(splitJsonSequence('[{"a":1},{"b":2}]').length).toBe(1);
  });

  test("strings with escapes and unicode", () => {
    expect(splitJsonSequence('{"k":"a\\"b\\\\c\\u00e9\\n","é":"😀"}')[0]!.value).toEqual({ k: 'a"b\\cé\n', é: "😀" });
  });

  test("malformed JSON: encoding/json wording and the offset", () => {
    expect(syntaxError('{"a":1} x').message).toBe("invalid character 'x' looking for beginning of value");
    expect(syntaxError('{"a":1} x').offset).toBe(8);
    expect(syntaxError('{"a" 1}').message).toBe("invalid character '1' after object key");
    expect(syntaxError('{"a":1 "b":2}').message).toBe("invalid character '\"' after object key:value pair");
    expect(syntaxError("[1 2]").message).toBe("invalid character '2' after array element");
    expect(syntaxError("{'a':1}").message).toBe("invalid character '\\'' looking for beginning of object key string");
    expect(syntaxError('{"a":tru}').message).toBe("invalid character '}' in literal true (expecting 'e')");
    expect(syntaxError('{"a":-x}').message).toBe("invalid character 'x' in numeric literal");
    expect(syntaxError('{"a":1.}').message).toBe("invalid character '}' after decimal point in numeric literal");
    expect(syntaxError('{"a":"\\q"}').message).toBe("invalid character 'q' in string escape code");
    expect(syntaxError('{"a":"x\ny"}').message).toBe("invalid character '\\n' in string literal");
    const eof = syntaxError('{"a":1}\n{"b":');
    expect(eof.message).toBe("unexpected EOF");
    expect(eof.offset).toBe(13);
  });
});

describe("readFirstJsonValue / lineColumn", () => {
  test("first value only; empty body is undefined", () => {
    expect(readFirstJsonValue("  ")).toBeUndefined();
    expect(readFirstJsonValue('{"a":1} garbage')!.kind).toBe("object");
  });
  test("line and column are 1-based, columns count code points", () => {
    const text = '{\n "é😀": x';
    expect(lineColumn(text, 0, text.indexOf("x"))).toEqual({ line: 2, column: 8 });
  });
});

describe("nesting depth", () => {
  test(`up to ${MAX_JSON_DEPTH} levels are read; one more is a syntax error at the bracket that opens it`, () => {
    const ok = "[".repeat(MAX_JSON_DEPTH) + "]".repeat(MAX_JSON_DEPTH);
    expect(readFirstJsonValue(ok)!.kind).toBe("array");
    const deep = `${'{"a":'.repeat(MAX_JSON_DEPTH)}[1]${"}".repeat(MAX_JSON_DEPTH)}`;
    const e = syntaxError(deep);
    expect(e.message).toBe(
      `invalid character '[' exceeded max depth (at most ${MAX_JSON_DEPTH} nested arrays and objects)`,
    );
    expect(e.offset).toBe(5 * MAX_JSON_DEPTH);
  });
  test("a 100,000-deep body fails cleanly (no stack overflow)", () => {
    expect(syntaxError("[".repeat(100_000)).message).toContain("exceeded max depth");
  });
  test("depth is counted per value, not per sequence", () => {
    const v = "[".repeat(MAX_JSON_DEPTH) + "]".repeat(MAX_JSON_DEPTH);
    expect(splitJsonSequence(`${v}\n${v}\n${v}`).length).toBe(3);
  });
});

describe("JsonSequenceSplitter", () => {
  const split = (chunks: string[], max?: number) => {
    const s = new JsonSequenceSplitter(max);
    const out = chunks.flatMap((c) => s.push(c));
    const rest = s.end();
    return rest === undefined ? out : [...out, rest];
  };
  const body = ' {"a":"x}\\"{[","b":[1,{"c":null}]}\n{"d":2}{"e":"\\\\"}[3] "str" 12 true\r\n{"f":{}}';

  test("the same values as the whole-text reader, however the text is cut", () => {
    const expected = splitJsonSequence(body).map((v) => body.slice(v.start, v.end));
    expect(split([body])).toEqual(expected);
    expect(split([...body])).toEqual(expected); // one character per chunk
    for (let cut = 0; cut <= body.length; cut++) expect(split([body.slice(0, cut), body.slice(cut)])).toEqual(expected);
  });

  test("malformed text comes out as values for the reader to report", () => {
    expect(split(['{"a":1}} x {"b"'])).toEqual(['{"a":1}', "}", "x", '{"b"']);
    expect(() => readJsonValue(split(["}"])[0]!)).toThrow("invalid character '}' looking for beginning of value");
  });

  test("nesting deeper than the limit ends the value at once; the reader reports the depth", () => {
    const deep = "[".repeat(100_000);
    const [first] = split([deep]);
    expect(first!.length).toBe(MAX_JSON_DEPTH + 1);
    expect(() => readJsonValue(first!)).toThrow("exceeded max depth");
  });

  test("a value longer than the limit throws; shorter ones pass", () => {
    expect(split([`{"a":"${"x".repeat(90)}"}`], 100)).toHaveLength(1);
    expect(() => split([`{"a":"${"x".repeat(200)}`, '"}'], 100)).toThrow(JsonValueTooLongError);
  });

  test("linear: a 2 MiB value delivered one character at a time", () => {
    const big = JSON.stringify({ a: "x".repeat(2 << 20) });
    const s = new JsonSequenceSplitter();
    const t0 = performance.now();
    let out: string[] = [];
    for (const ch of big) out = out.concat(s.push(ch));
    expect(out).toEqual([big]);
    // Not a speed test: re-reading the value from its start on every character would take hours.
    expect(performance.now() - t0).toBeLessThan(60_000);
  });
});
