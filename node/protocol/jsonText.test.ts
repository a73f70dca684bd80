import { describe, expect, test } from 'bun:test';
import { JsonSyntaxError, lineColumn, MAX_JSON_DEPTH, readFirstJsonValue, splitJsonSequence } from './jsonText.ts';

function syntaxError(text: string): JsonSyntaxError {
  try {
    splitJsonSequence(text);
  } catch (err) {
    expect(err).toBeInstanceOf(JsonSyntaxError);
    return err as JsonSyntaxError;
  }
  throw new Error('expected a syntax error');
}

describe('splitJsonSequence', () => {
  test('NDJSON, concatenated, whitespace-separated, empty', () => {
    expect(splitJsonSequence('{"a":1}\n{"b":2}\n').map((i) => i.value)).toEqual([{ a: 1 }, { b: 2 }]);
    expect(splitJsonSequence('{"a":1}{"b":2}').map((i) => i.value)).toEqual([{ a: 1 }, { b: 2 }]);
    expect(splitJsonSequence(' \t{"a":[1,2]}  \r\n {"b":{"c":null}} ').map((i) => i.value)).toEqual([{ a: [1, 2] }, { b: { c: null } }]);
    expect(splitJsonSequence('')).toEqual([]);
    expect(splitJsonSequence('  \n')).toEqual([]);
  });

  test('items carry their offsets', () => {
    const items = splitJsonSequence('{"a":1}\n  {"b":2}');
    expect(items.map((i) => [i.start, i.end])).toEqual([
      [0, 7],
      [10, 17],
    ]);
  });

  test('a top-level array is one value, not unpacked', () => {
    expect(splitJsonSequence('[{"a":1},{"b":2}]').length).toBe(1);
  });

  test('strings with escapes and unicode', () => {
    expect(splitJsonSequence('{"k":"a\\"b\\\\c\\u00e9\\n","é":"😀"}')[0]!.value).toEqual({ k: 'a"b\\cé\n', é: '😀' });
  });

  test('malformed JSON: encoding/json wording and the offset', () => {
    expect(syntaxError('{"a":1} x').message).toBe("invalid character 'x' looking for beginning of value");
    expect(syntaxError('{"a":1} x').offset).toBe(8);
    expect(syntaxError('{"a" 1}').message).toBe("invalid character '1' after object key");
    expect(syntaxError('{"a":1 "b":2}').message).toBe("invalid character '\"' after object key:value pair");
    expect(syntaxError('[1 2]').message).toBe("invalid character '2' after array element");
    expect(syntaxError("{'a':1}").message).toBe("invalid character '\\'' looking for beginning of object key string");
    expect(syntaxError('{"a":tru}').message).toBe("invalid character '}' in literal true (expecting 'e')");
    expect(syntaxError('{"a":-x}').message).toBe("invalid character 'x' in numeric literal");
    expect(syntaxError('{"a":1.}').message).toBe("invalid character '}' after decimal point in numeric literal");
    expect(syntaxError('{"a":"\\q"}').message).toBe("invalid character 'q' in string escape code");
    expect(syntaxError('{"a":"x\ny"}').message).toBe("invalid character '\\n' in string literal");
    const eof = syntaxError('{"a":1}\n{"b":');
    expect(eof.message).toBe('unexpected EOF');
    expect(eof.offset).toBe(13);
  });
});

describe('readFirstJsonValue / lineColumn', () => {
  test('first value only; empty body is undefined', () => {
    expect(readFirstJsonValue('  ')).toBeUndefined();
    expect(readFirstJsonValue('{"a":1} garbage')!.kind).toBe('object');
  });
  test('line and column are 1-based, columns count code points', () => {
    const text = '{\n "é😀": x';
    expect(lineColumn(text, 0, text.indexOf('x'))).toEqual({ line: 2, column: 8 });
  });
});

describe('nesting depth', () => {
  test(`up to ${MAX_JSON_DEPTH} levels are read; one more is a syntax error at the bracket that opens it`, () => {
    const ok = '['.repeat(MAX_JSON_DEPTH) + ']'.repeat(MAX_JSON_DEPTH);
    expect(readFirstJsonValue(ok)!.kind).toBe('array');
    const deep = '{"a":'.repeat(MAX_JSON_DEPTH) + '[' + '1' + ']' + '}'.repeat(MAX_JSON_DEPTH);
    const e = syntaxError(deep);
    expect(e.message).toBe(`invalid character '[' exceeded max depth (at most ${MAX_JSON_DEPTH} nested arrays and objects)`);
    expect(e.offset).toBe(5 * MAX_JSON_DEPTH);
  });
  test('a 100,000-deep body fails cleanly (no stack overflow)', () => {
    expect(syntaxError('['.repeat(100_000)).message).toContain('exceeded max depth');
  });
  test('depth is counted per value, not per sequence', () => {
    const v = '['.repeat(MAX_JSON_DEPTH) + ']'.repeat(MAX_JSON_DEPTH);
    expect(splitJsonSequence(`${v}\n${v}\n${v}`).length).toBe(3);
  });
});
