/** Snapshot id arguments of the tag procedures: 64-bit ids are answered with their exact digits. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { snapshotIdArg } from '../../../../procedures/tags/tag-args.js';
import { isPaimonError } from '../../../../src/paimon/errors.js';
import { toProcedureError } from '../../../../procedures/framework/errors.js';

describe('snapshotIdArg', () => {
  test('ids up to 2^53-1 are numbers; null stays null', () => {
    assert.equal(snapshotIdArg(null), null);
    assert.equal(snapshotIdArg(1n), 1);
    assert.equal(snapshotIdArg(9007199254740991n), 9007199254740991);
  });

  for (const [name, id] of [['2^53+1', 9007199254740993n], ['2^53', 9007199254740992n], ['2^63-1', 9223372036854775807n]] as const) {
    test(`${name} names no snapshot, said with the exact digits`, () => {
      assert.throws(() => snapshotIdArg(id), (e: unknown) => {
        assert.ok(isPaimonError(e, 'SNAPSHOT_NOT_FOUND'), String(e));
        const m = (e as Error).message;
        assert.ok(m.includes(`snapshot ${id.toString()} does not exist`), m);
        // The rounded double would print other digits (2^63-1 as 9223372036854775808, 2^53+1 as ...992).
        assert.ok(!m.includes(String(Number(id))) || String(Number(id)) === id.toString(), m);
        assert.equal(toProcedureError(e).code, 'SNAPSHOT_NOT_FOUND');
        return true;
      });
    });
  }

  test('zero and negative ids are invalid arguments', () => {
    assert.throws(() => snapshotIdArg(0n), (e: unknown) => isPaimonError(e, 'INVALID_ARGUMENT'));
    assert.throws(() => snapshotIdArg(-9223372036854775808n), (e: unknown) => isPaimonError(e, 'INVALID_ARGUMENT') && (e as Error).message.includes('-9223372036854775808'));
  });
});
