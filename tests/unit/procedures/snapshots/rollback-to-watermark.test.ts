/**
 * The watermark search of rollback_to_watermark, step for step Paimon's
 * SnapshotManager.earlierOrEqualWatermark, over histories given as watermark lists.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { earlierOrEqualWatermark } from '../../../../procedures/snapshots/rollback-to-watermark.js';
import { createDefaultRegistry } from '../../../../procedures/index.js';

const MIN = -9223372036854775808n;

/** Watermarks of snapshots first..first+n-1 (null: the snapshot has none). */
function search(first: number, wms: Array<bigint | null>, wm: bigint): Promise<number | null> {
  return earlierOrEqualWatermark(first, first + wms.length - 1, wm, async (id) => {
    const v = wms[id - first];
    if (v === undefined) throw new Error(`snapshot ${id} read out of range`);
    return v;
  });
}

test('is registered among the built-in procedures', () => {
  assert.ok(createDefaultRegistry().lookup('rollback_to_watermark'));
});

test('the last snapshot whose watermark is <= the argument; an exact match wins', async () => {
  assert.equal(await search(1, [10n, 20n, 30n, 40n], 25n), 2);
  assert.equal(await search(1, [10n, 20n, 30n, 40n], 30n), 3);
  assert.equal(await search(1, [10n, 20n, 30n, 40n], 99n), 4);
  assert.equal(await search(5, [10n, 20n, 30n, 40n], 25n), 6);
});

test('snapshots without a watermark: Java keeps the probed snapshot; where Java would loop forever, we end with its answer', async () => {
  assert.equal(await search(1, [10n, null, 20n, 30n], 25n), 3);
  assert.equal(await search(1, [null, 10n, null, 30n, null], 20n), 3);
  assert.equal(await search(1, [null, 10n, null, 30n, 35n], 31n), 4);
});

test("Java's edges: below the first watermark it returns the first snapshot with one; no watermark at all is null", async () => {
  assert.equal(await search(1, [null, 10n, 20n], 5n), 2);
  assert.equal(await search(1, [null, null], 5n), null);
  assert.equal(await search(1, [10n, MIN], 5n), null); // the latest carries Flink's "no watermark yet"
  assert.equal(await earlierOrEqualWatermark(null, null, 5n, async () => null), null);
});
