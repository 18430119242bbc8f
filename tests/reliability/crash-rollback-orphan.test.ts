/**
 * Crash safety of rollback_to a snapshot and of remove_orphan_files. See crash-procedures-support.ts for what every kill is checked against.
 */
import { describe, test, before } from 'node:test';
import assert from 'node:assert/strict';
import { utimesSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { TWO_DAYS_AGO, ageTree, paimon } from '../interop/procedures-support.js';
import { TABLE, V, crashOrigin, crashSuite, javaCheckOk } from './crash-procedures-support.js';

describe('rollback_to and remove_orphan_files survive SIGKILL at any step (Paimon 1.4.2 tables)', () => {
  let origin: string;
  before(async () => {
    origin = await crashOrigin();
  });

  test('rollback_to: Java check passes right after every kill; a rerun finishes', async () => {
    await crashSuite(
      origin,
      'rollback',
      'rollback_to',
      { table: 'interop.t', snapshot_id: 4 },
      { afterCrash: async (wh) => assert.equal(await javaCheckOk(wh), true, 'Java check right after the kill') },
    );
  });

  test('remove_orphan_files: check passes after every kill; a rerun deletes the rest', async () => {
    await crashSuite(
      origin,
      'orphan',
      'remove_orphan_files',
      { table: 'interop.t' },
      {
        prepare: async (wh) => {
          await paimon(V, 'rollback', wh, 'interop', 't', '9');
          ageTree(wh);
          const dir = join(wh, TABLE, 'manifest');
          mkdirSync(dir, { recursive: true });
          for (let i = 0; i < 5; i++) {
            const p = join(dir, `manifest-planted-${i}`);
            writeFileSync(p, 'x');
            utimesSync(p, TWO_DAYS_AGO, TWO_DAYS_AGO);
          }
        },
        afterCrash: async (wh) => assert.equal(await javaCheckOk(wh), true, 'Java check right after the kill'),
      },
    );
  });
});
