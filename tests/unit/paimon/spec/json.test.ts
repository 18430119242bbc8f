import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { JsonDecimal, parseJson, parseJsonExact, quoteJsonString, toJsonCompact, toJsonPretty, orderedObject } from '../../../../src/paimon/spec/json.js';
import { isPaimonError } from '../../../../src/paimon/errors.js';

// Expected layouts below are Jackson 2 DefaultPrettyPrinter output as it appears in Paimon's own
// tests and docs (TagTest.testFromSnapshotAndTagTtl, docs/content/concepts/spec/schema.md).

describe('parseJson keeps 64-bit integers exact', () => {
  test('Long.MAX_VALUE and Long.MIN_VALUE come back as bigint', () => {
    const v = parseJson('{"commitIdentifier" : 9223372036854775807, "watermark" : -9223372036854775808}') as Record<string, unknown>;
    assert.equal(v.commitIdentifier, 9223372036854775807n);
    assert.equal(v.watermark, -9223372036854775808n);
  });

  test('small integers stay numbers, unsafe 16-digit ones become bigint', () => {
    const v = parseJson('[1, -7, 9007199254740991, 9007199254740993]') as unknown[];
    assert.deepEqual(v, [1, -7, 9007199254740991, 9007199254740993n]);
  });

  test('fractional numbers are kept verbatim', () => {
    const v = parseJson('{"tagTimeRetained" : 86400.000000000}') as Record<string, unknown>;
    assert.ok(v.tagTimeRetained instanceof JsonDecimal);
    assert.equal((v.tagTimeRetained as JsonDecimal).text, '86400.000000000');
  });

  test('a "__proto__" key is an ordinary key', () => {
    const v = parseJson('{"__proto__" : 1, "x" : 9223372036854775807}') as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(v), Object.prototype);
    assert.deepEqual(Object.keys(v), ['__proto__', 'x']);
  });

  test('malformed JSON is CORRUPT_METADATA naming the source', () => {
    assert.throws(
      () => parseJson('{"a" : 12345678901234567 ', '/t/snapshot/snapshot-1'),
      (e) => isPaimonError(e, 'CORRUPT_METADATA') && e.message.includes('/t/snapshot/snapshot-1'),
    );
    assert.throws(() => parseJson('{"a" : }', 'x'), (e) => isPaimonError(e, 'CORRUPT_METADATA'));
    // Leading zeros are not JSON, also on the big-number path.
    assert.throws(() => parseJson('{"a" : 00000000000000001}', 'x'), (e) => isPaimonError(e, 'CORRUPT_METADATA'));
    assert.throws(() => parseJson('[01.5]', 'x'), (e) => isPaimonError(e, 'CORRUPT_METADATA'));
  });

  test('string escapes decode', () => {
    assert.equal(parseJson('"a\\u00e9\\n\\"\\\\\\/ 12345678901234567"'), 'aé\n"\\/ 12345678901234567');
  });
});

describe('toJsonPretty writes the Jackson default pretty-printer layout', () => {
  test('Paimon schema layout: arrays of objects open inline, empty containers spaced', () => {
    const schema = orderedObject([
      ['version', 3],
      ['id', 0],
      [
        'fields',
        [
          orderedObject([['id', 0], ['name', 'order_id'], ['type', 'BIGINT NOT NULL']]),
          orderedObject([['id', 1], ['name', 'order_name'], ['type', 'STRING']]),
        ],
      ],
      ['highestFieldId', 1],
      ['partitionKeys', []],
      ['primaryKeys', ['order_id']],
      ['options', { bucket: '5' }],
      ['comment', ''],
      ['timeMillis', 1720496663041],
    ]);
    const expected = [
      '{',
      '  "version" : 3,',
      '  "id" : 0,',
      '  "fields" : [ {',
      '    "id" : 0,',
      '    "name" : "order_id",',
      '    "type" : "BIGINT NOT NULL"',
      '  }, {',
      '    "id" : 1,',
      '    "name" : "order_name",',
      '    "type" : "STRING"',
      '  } ],',
      '  "highestFieldId" : 1,',
      '  "partitionKeys" : [ ],',
      '  "primaryKeys" : [ "order_id" ],',
      '  "options" : {',
      '    "bucket" : "5"',
      '  },',
      '  "comment" : "",',
      '  "timeMillis" : 1720496663041',
      '}',
    ].join('\n');
    assert.equal(toJsonPretty(schema), expected);
  });

  test('tag time fields: an array of ints and a verbatim decimal', () => {
    const v = orderedObject([
      ['tagCreateTime', [1969, 1, 1, 0, 0, 0, 123456789]],
      ['tagTimeRetained', new JsonDecimal('5.000000000')],
    ]);
    assert.equal(
      toJsonPretty(v),
      '{\n  "tagCreateTime" : [ 1969, 1, 1, 0, 0, 0, 123456789 ],\n  "tagTimeRetained" : 5.000000000\n}',
    );
  });

  test('empty object, nested objects, undefined omitted, null written, bigint exact', () => {
    const v = orderedObject([
      ['a', {}],
      ['b', { c: { d: 1 } }],
      ['skip', undefined],
      ['n', null],
      ['big', -9223372036854775808n],
    ]);
    assert.equal(
      toJsonPretty(v),
      '{\n  "a" : { },\n  "b" : {\n    "c" : {\n      "d" : 1\n    }\n  },\n  "n" : null,\n  "big" : -9223372036854775808\n}',
    );
  });

  test('strings are escaped like Jackson (short escapes, \\u00XX upper-case, non-ASCII raw)', () => {
    assert.equal(quoteJsonString('a"b\\c\n\t\u0001é/'), '"a\\"b\\\\c\\n\\t\\u0001é/"');
  });

  test('round trip through parse keeps big values and key order', () => {
    const text = '{\n  "z" : 9223372036854775807,\n  "a" : [ 1, 2 ],\n  "m" : 0.5\n}';
    assert.equal(toJsonPretty(parseJson(text)), text);
    assert.equal(toJsonCompact(parseJson(text)), '{"z":9223372036854775807,"a":[1,2],"m":0.5}');
  });
});

describe('fast and exact parse paths agree', () => {
  const value: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
    v: fc.oneof(
      { depthSize: 'small' },
      fc.constant(null),
      fc.boolean(),
      fc.integer(),
      fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
      fc.string({ unit: 'binary' }),
      fc.constantFrom('9223372036854775807', '"1.5"', '\\', 'a"b', '12345678901234567.5'),
      fc.tuple(fc.integer({ min: -1000, max: 1000 }), fc.integer({ min: 0, max: 999999999 })).map(([a, b]) => new JsonDecimal(`${a}.${b}`)),
      fc.array(tie('v'), { maxLength: 4 }),
      fc.dictionary(fc.string(), tie('v'), { maxKeys: 4 }),
    ),
  })).v;

  test('random documents: parse(pretty(v)) is identical on both paths and preserves v', () => {
    fc.assert(
      fc.property(value, (v) => {
        const text = toJsonPretty(v as Parameters<typeof toJsonPretty>[0]);
        const fast = parseJson(text);
        const exact = parseJsonExact(text);
        assert.deepEqual(fast, exact);
        assert.equal(toJsonPretty(fast), text);
      }),
      { numRuns: 500 },
    );
  });
});
