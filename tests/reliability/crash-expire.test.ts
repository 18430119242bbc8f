/**
 * Crash safety of expire_snapshots, and of rollback_to an expired tag (a snapshot restored from the tag). See crash-procedures-support.ts for what every kill is checked against.
 */
import { describe, test, before } from 'node:test';
import assert from 'node:assert/strict';
import { paimon, readRows } from '../interop/procedures-support.js';
import { V, crashOrigin, crashSuite, javaCheckOk } from './crash-procedures-support.js';

describe('expire_snapshots and rollback_to an expired tag survive SIGKILL at any step (Paimon 1.4.2 tables)', () => {
  let origin: string;
  before(async () => {
    origin = await crashOrigin();
  });

  test('expire_snapshots: latest snapshot and tags stay readable; a rerun finishes the range', async () => {
    const latestRows = await readRows(V, origin, 'interop', 't');
    const tagRows = await readRows(V, origin, 'interop', 't', 'tag:tag3');
    const n = await crashSuite(
      origin,
      'expire',
      'expire_snapshots',
      { table: 'interop.t', retain_min: 2, retain_max: 2147483647, max_deletes: 2147483647, older_than: String(Date.now()) },
      {
        afterCrash: async (wh) => {
          assert.deepEqual(await readRows(V, wh, 'interop', 't'), latestRows, 'latest snapshot readable after the kill');
          assert.deepEqual(await readRows(V, wh, 'interop', 't', 'tag:tag3'), tagRows, 'tag readable after the kill');
        },
      },
    );
    assert.ok(n >= 5);
  });

  test('rollback_to an expired tag (snapshot restored from the tag): check passes after every kill', async () => {
    await crashSuite(
      origin,
      'rollback-tag',
      'rollback_to',
      { table: 'interop.t', tag: 'tag3' },
      {
        prepare: async (wh) => {
          await paimon(V, 'expire', wh, 'interop', 't', '1', '5', String(Date.now()), '2147483647');
        },
        afterCrash: async (wh) => assert.equal(await javaCheckOk(wh), true, 'Java check right after the kill'),
      },
    );
  });
});
