import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { closestMatches, didYouMean, editDistance, suggestionLimit } from '../../../../procedures/framework/suggest.js';
import { bindArgumentsDynamic, type CallArgument } from '../../../../procedures/framework/binding.js';
import { isProcedureError } from '../../../../procedures/framework/errors.js';
import { ProcedureRegistry } from '../../../../procedures/framework/registry.js';
import { expireSnapshots } from '../../../../procedures/snapshots/expire-snapshots.js';
import { rollback, rollbackTo } from '../../../../procedures/snapshots/rollback-to.js';
import { compact } from '../../../../procedures/compaction/compact.js';
import { FRAMEWORK_PARAMS } from '../../../../procedures/framework/jobs/async-call.js';

const named = (...pairs: [string, string | number][]): CallArgument[] =>
  pairs.map(([name, v], i) => ({
    name,
    value: typeof v === 'string' ? { kind: 'string', value: v } : { kind: 'integer', value: BigInt(v), text: String(v) },
    offset: i,
  }));

function unknownMessage(fn: () => unknown): string {
  let message = '';
  assert.throws(fn, (e) => {
    assert.ok(isProcedureError(e, 'ARGUMENT_UNKNOWN'), String(e));
    message = e.message;
    return true;
  });
  return message;
}

describe('edit distance (optimal string alignment)', () => {
  test('insertions, deletions, substitutions and a swap of neighbours cost one each', () => {
    assert.equal(editDistance('retain_max', 'retain_max'), 0);
    assert.equal(editDistance('retian_max', 'retain_max'), 1, 'a swap is one edit');
    assert.equal(editDistance('retain_mx', 'retain_max'), 1);
    assert.equal(editDistance('kitten', 'sitting'), 3);
    assert.equal(editDistance('', 'abc'), 3);
    assert.equal(editDistance('abc', ''), 3);
  });
  test('only close names are suggested: the limit grows with the length and stays under half of it', () => {
    assert.deepEqual([1, 2, 4, 5, 8, 9, 20].map(suggestionLimit), [1, 1, 1, 2, 2, 3, 3]);
    assert.deepEqual(closestMatches('tag', [{ name: 'table', canonical: 'table' }]), []);
    assert.deepEqual(closestMatches('snapshot_idd', [{ name: 'snapshot_id', canonical: 'snapshot_id' }]).map((s) => s.distance), [1]);
  });
  test('one suggestion per canonical name, the nearest spelling, nearest first', () => {
    const c = [
      { name: 'snapshot_id', canonical: 'snapshot_id' },
      { name: 'snapshotId', canonical: 'snapshot_id' },
      { name: 'snapshot', canonical: 'snapshot_id' },
      { name: 'tag', canonical: 'tag' },
    ];
    const s = closestMatches('snapshotid', c);
    assert.equal(s.length, 1);
    assert.equal(s[0]!.canonical, 'snapshot_id');
    assert.equal(s[0]!.distance, 1);
    assert.equal(didYouMean('zzzzzz', c), '');
  });
});

describe('did you mean, for argument names (binding)', () => {
  test('a near-miss argument name gets the parameter it is near, with how close', () => {
    const m = unknownMessage(() => bindArgumentsDynamic(expireSnapshots, named(['table', 'db.t'], ['retian_max', 3])));
    assert.match(m, /Argument 'retian_max' is unknown for procedure expire_snapshots/);
    assert.match(m, /Did you mean retain_max \(1 edit away\)\?/);
  });
  test('aliases are candidates too, and the suggestion says which parameter the alias stands for', () => {
    const m = unknownMessage(() => bindArgumentsDynamic(rollbackTo, named(['table', 'db.t'], ['snapshotIdd', 3])));
    assert.match(m, /Did you mean snapshotId \(alias of snapshot_id, 1 edit away\)/);
  });
  test('the framework arguments are suggested too', () => {
    const m = unknownMessage(() => bindArgumentsDynamic(compact, named(['table', 'db.t'], ['asynch', 1]), undefined, FRAMEWORK_PARAMS));
    assert.match(m, /Did you mean async \(1 edit away\)/);
  });
  test('a name far from every parameter gets no suggestion, only the signature', () => {
    const m = unknownMessage(() => bindArgumentsDynamic(expireSnapshots, named(['table', 'db.t'], ['completely_else', 3])));
    assert.doesNotMatch(m, /Did you mean/);
    assert.match(m, /Signature: expire_snapshots\(table STRING required/);
  });
});

describe('did you mean, for procedure names (registry)', () => {
  const registry = new ProcedureRegistry([expireSnapshots, rollbackTo, rollback, compact]);
  const notFound = (name: string): string => {
    let message = '';
    assert.throws(() => registry.get(name, 'paimon'), (e) => {
      assert.ok(isProcedureError(e, 'PROCEDURE_NOT_FOUND'), String(e));
      message = e.message;
      return true;
    });
    return message;
  };
  test('a near-miss procedure name gets the procedure, with how close, and the list still follows', () => {
    const m = notFound('expire_snapshot');
    assert.match(m, /^PROCEDURE paimon\.sys\.expire_snapshot does not exist\. Did you mean expire_snapshots \(1 edit away\)\?/);
    assert.match(m, /Available procedures: .*rollback_to/);
  });
  test('several close names are all offered, nearest first', () => {
    assert.match(notFound('rollbak_to'), /Did you mean rollback_to \(1 edit away\)/);
    assert.match(notFound('rolback'), /Did you mean rollback \(1 edit away\)/);
  });
  test('an unrelated name gets no suggestion', () => {
    assert.doesNotMatch(notFound('expire_everything'), /Did you mean/);
  });
});
