import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { bounded, MAX_QUOTED_CHARS, quote } from '../../../../procedures/framework/quote.js';
import { bindArgumentsDynamic, bindFrameworkArguments, describeValue, type CallArgument } from '../../../../procedures/framework/binding.js';
import { isProcedureError, type ProcedureErrorCode } from '../../../../procedures/framework/errors.js';
import { formatSignature } from '../../../../procedures/framework/signature.js';
import { FRAMEWORK_PARAMS } from '../../../../procedures/framework/jobs/async-call.js';
import { parseTableIdentifier } from '../../../../procedures/framework/target.js';
import { describeNearbyNames, describeNearbySnapshots } from '../../../../procedures/framework/nearby.js';
import { compact } from '../../../../procedures/compaction/compact.js';
import { rollbackTo } from '../../../../procedures/snapshots/rollback-to.js';
import { clearRegisteredSecrets, maskText } from '../../../../src/security/masking.js';

type Literal = CallArgument['value'];
const lit = (v: string | number | boolean): Literal =>
  typeof v === 'string' ? { kind: 'string', value: v } : typeof v === 'boolean' ? { kind: 'boolean', value: v } : { kind: 'integer', value: BigInt(v), text: String(v) };
const named = (...pairs: [string, string | number | boolean][]): CallArgument[] => pairs.map(([name, v], i) => ({ name, value: lit(v), offset: i }));

function messageOf(code: ProcedureErrorCode, fn: () => unknown): string {
  let message = '';
  assert.throws(fn, (e) => {
    assert.ok(isProcedureError(e, code), String(e));
    message = e.message;
    return true;
  });
  return message;
}

describe('bounded quotes of user input', () => {
  test('a short value is quoted as is', () => {
    assert.equal(quote('db.t'), "'db.t'");
    assert.equal(bounded('db.t'), 'db.t');
  });
  test(`a long value is cut at ${MAX_QUOTED_CHARS} characters with an ellipsis and its original length`, () => {
    const q = quote('x'.repeat(5000));
    assert.ok(q.startsWith(`'${'x'.repeat(MAX_QUOTED_CHARS)}…'`), q.slice(0, 20));
    assert.ok(q.endsWith('(5000 characters)'), q.slice(-30));
    assert.ok(q.length < MAX_QUOTED_CHARS + 40);
    assert.match(bounded('y'.repeat(300)), /^y{200}… \(300 characters\)$/);
  });
  test('characters are counted as code points, so a surrogate pair is never split', () => {
    const q = quote('😀'.repeat(300));
    assert.ok(q.includes('😀'.repeat(MAX_QUOTED_CHARS) + '…'));
    assert.ok(q.endsWith('(300 characters)'));
  });
  test('control characters cannot break a message over lines', () => {
    assert.equal(quote('a\nb\tc\u0001'), "'a\\nb\\tc\\x01'");
  });
  test('secrets are still masked in a message that quotes them, also when the value is cut', () => {
    clearRegisteredSecrets();
    const secret = 'S3CR3T'.repeat(60);
    const message = `options entry ${quote(`s3.secret-key=${secret}`)} is not key=value`;
    const masked = maskText(message);
    assert.ok(!masked.includes('S3CR3T'), masked);
  });
  test('binding echoes a long string value bounded', () => {
    assert.equal(describeValue(lit('v'.repeat(1000))), `string ${quote('v'.repeat(1000))}`);
    const m = messageOf('ARGUMENT_TYPE', () => bindArgumentsDynamic(rollbackTo, named(['table', 'db.t'], ['snapshot_id', 'z'.repeat(100_000)])));
    assert.ok(m.length < 1000, `message of ${m.length} characters`);
    assert.match(m, /\(100000 characters\)/);
  });
  test('a long unknown argument name and a long table identifier are bounded too', () => {
    const m = messageOf('ARGUMENT_UNKNOWN', () => bindArgumentsDynamic(compact, named(['table', 'db.t'], ['n'.repeat(10_000), 1])));
    assert.ok(m.length < 1500, `message of ${m.length} characters`);
    const t = messageOf('INVALID_ARGUMENT', () => parseTableIdentifier(`${'d'.repeat(10_000)}.a.b.c`, { catalog: 'paimon', currentDatabase: null }));
    assert.ok(t.length < 600, `message of ${t.length} characters`);
  });
});

describe('argument names as the user typed them', () => {
  test('a wrong type names the alias typed and the parameter it stands for', () => {
    const m = messageOf('ARGUMENT_TYPE', () => bindArgumentsDynamic(rollbackTo, named(['table', 'db.t'], ['snapshotId', 'abc'])));
    assert.match(m, /Argument snapshotId \(snapshot_id\) of procedure rollback_to must be a BIGINT, got string 'abc'/);
  });
  test('a duplicate through an alias names both spellings', () => {
    const m = messageOf('ARGUMENT_DUPLICATED', () => bindArgumentsDynamic(rollbackTo, named(['table', 'db.t'], ['snapshot_id', 1], ['snapshotId', 2])));
    assert.match(m, /snapshotId \(snapshot_id\) is duplicated \(also given as snapshot_id\)/);
  });
});

describe('framework arguments in signatures', () => {
  test('the signature shows the framework arguments after the procedure\'s own, by name only', () => {
    const s = formatSignature(compact, FRAMEWORK_PARAMS);
    assert.match(s, /^compact\(table STRING required, .*dry_run BOOLEAN = FALSE; by name only: timeout STRING, async BOOLEAN\)$/);
    assert.doesNotMatch(formatSignature(compact), /by name only/);
  });
  test('a bad async value shows the procedure\'s own signature, not one made of the framework arguments', () => {
    const m = messageOf('ARGUMENT_TYPE', () => bindFrameworkArguments(compact, FRAMEWORK_PARAMS, named(['async', 'soon'])));
    assert.match(m, /Argument async of procedure compact must be a BOOLEAN, got string 'soon'/);
    assert.match(m, /Signature: compact\(table STRING required, partitions STRING/);
    assert.match(m, /by name only: timeout STRING, async BOOLEAN\)/);
    assert.doesNotMatch(m, /compact\(timeout/);
  });
  test('framework arguments bind with the ordinary rules; only those given are returned', () => {
    assert.deepEqual(bindFrameworkArguments(compact, FRAMEWORK_PARAMS, named(['ASYNC', 1])), { async: true });
    assert.deepEqual(bindFrameworkArguments(compact, FRAMEWORK_PARAMS, named(['timeout', 90])), { timeout: '90' });
    messageOf('ARGUMENT_DUPLICATED', () => bindFrameworkArguments(compact, FRAMEWORK_PARAMS, named(['async', true], ['async', false])));
  });
  test('binding errors of the procedure\'s own arguments show the framework arguments too', () => {
    const m = messageOf('ARGUMENT_MISSING', () => bindArgumentsDynamic(compact, [], undefined, FRAMEWORK_PARAMS));
    assert.match(m, /Signature: compact\(.*; by name only: timeout STRING, async BOOLEAN\)/);
  });
});

describe('what exists near a missing id or name', () => {
  test('a snapshot older than the earliest: the range left and that it may have expired', () => {
    const t = describeNearbySnapshots([5, 6, 7, 8, 9, 10], 1);
    assert.match(t, /Snapshots 5\.\.10 exist \(6 in all\)/);
    assert.match(t, /older than the earliest/);
  });
  test('a gap inside the range: the nearest ids on each side', () => {
    assert.match(describeNearbySnapshots([3, 4, 5, 9, 10, 11], 7), /the nearest to 7 are 4, 5, 9 and 10/);
    assert.match(describeNearbySnapshots([3], 4), /Only snapshot 3 exists; 4 is newer than the latest/);
    assert.match(describeNearbySnapshots([], 4), /no snapshots/);
  });
  test('a tag: those spelt like it, or all of them when there are few', () => {
    const words = { one: 'tag', many: 'tags' };
    assert.match(describeNearbyNames(['eod_2026_11_27', 'eod_2026_11_28', 'weekly'], 'eod_2026_11_29', words), /eod_2026_11_27 \(1 edit away\), eod_2026_11_28 \(1 edit away\); 3 tags in all/);
    assert.match(describeNearbyNames(['a1', 'b2'], 'zzzzzz', words), /Existing tags: 'a1', 'b2'/);
    assert.match(describeNearbyNames(['a1', 'b2', 'c3', 'd4'], 'zzzzzz', words), /None of the 4 tags/);
    assert.match(describeNearbyNames([], 'x', words), /no tags/);
  });
});
