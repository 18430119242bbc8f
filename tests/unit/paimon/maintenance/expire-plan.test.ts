import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PaimonError, isPaimonError, type PaimonErrorCode } from '../../../../src/paimon/errors.js';
import { planExpire } from '../../../../src/paimon/maintenance/expire-plan.js';
import type { ManifestFileRef, MaintenanceFileEntry } from '../../../../src/paimon/maintenance/types.js';
import { FakeTable, baseNames, locator } from '../../procedures/maintenance-fixture.js';

/** A history whose reader fails with `code` on the named files (a file that exists but does not decode). */
class UndecodableTable extends FakeTable {
  readonly failing = new Map<string, PaimonErrorCode>();
  override async readManifestList(name: string): Promise<ManifestFileRef[]> {
    const code = this.failing.get(name);
    if (code) throw new PaimonError(code, `manifest list ${name} cannot be decoded`);
    return super.readManifestList(name);
  }
  override async readManifest(name: string): Promise<MaintenanceFileEntry[]> {
    const code = this.failing.get(name);
    if (code) throw new PaimonError(code, `manifest ${name} cannot be decoded`);
    return super.readManifest(name);
  }
}

function history(): UndecodableTable {
  const t = new UndecodableTable();
  t.commit({ add: ['a'] }); // 1
  t.commit({ add: ['b'], changelog: ['cl2'] }); // 2
  t.commit({ del: ['a'], add: ['a2'], compact: true }); // 3
  t.commit({ add: ['c'] }); // 4
  return t;
}

const input = (t: FakeTable, end: number) => ({
  earliestId: 1,
  endExclusive: end,
  snapshots: [...t.snapshots.values()].filter((s) => s.id <= end),
  taggedSnapshots: t.sortedTags(),
  changelogDecoupled: false,
  produceChangelog: true,
});

describe('expire plan: missing files are tolerated, undecodable ones stop the plan', () => {
  for (const code of ['CORRUPT_METADATA', 'UNSUPPORTED_FORMAT', 'STORAGE_ERROR'] as const) {
    for (const [what, file] of [
      ['an expired snapshot\'s delta manifest list', 'manifest-list-d3'],
      ['a delta manifest', 'manifest-d3'],
      ['the end snapshot\'s base manifest list (skipping set)', 'manifest-list-b4'],
      ['an expired snapshot\'s base manifest list', 'manifest-list-b2'],
      ['a changelog manifest list', 'manifest-list-c2'],
      ['a changelog manifest', 'manifest-c2'],
    ] as const) {
      test(`${code} on ${what} rejects the plan`, async () => {
        const t = history();
        t.failing.set(file, code);
        await assert.rejects(planExpire(input(t, 4), t, locator), (e) => isPaimonError(e, code) && e.message.includes(file));
      });
    }
  }

  test('a tag whose manifests cannot be decoded rejects the plan (a missing one only keeps its files)', async () => {
    const t = history();
    t.tag('t1', 1);
    t.failing.set('manifest-list-b1', 'CORRUPT_METADATA');
    await assert.rejects(planExpire(input(t, 4), t, locator), (e) => isPaimonError(e, 'CORRUPT_METADATA'));
    t.failing.clear();
    t.lists.delete('manifest-list-b1');
    const plan = await planExpire(input(t, 4), t, locator);
    assert.deepEqual(plan.dataFiles, []);
    assert.ok(plan.warnings.some((w) => w.includes('tagged snapshot 1')));
  });

  test('a manifest list already deleted by an earlier run reads as empty', async () => {
    const t = history();
    t.lists.delete('manifest-list-d3');
    const plan = await planExpire(input(t, 4), t, locator);
    assert.deepEqual(plan.snapshotIds, [1, 2, 3]);
    assert.ok(!baseNames(plan.dataFiles).includes('a'), 'the delta that deleted a is gone: a stays');
    assert.ok(baseNames(plan.metadataFiles!).includes('manifest-list-b3'));
  });
});
