/**
 * expire_changelogs' pure parts: the argument checks (Paimon's retain_max >= retain_min, plus
 * negative counts and a future older_than refused) and the deletion plan on plain metadata (a
 * changelog-producer changelog deletes the files its changelog manifests add; one without a
 * producer deletes what its delta removed unless the nearest earlier tag holds it; manifests the
 * end changelog, the earliest snapshot or a tag use are kept). Java's results on real tables:
 * tests/interop/procedures-changelogs.test.ts.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { changelogRetention } from '../../../../procedures/changelogs/expire-changelogs.js';
import { planExpireChangelogs } from '../../../../src/paimon/changelogs/expire-changelog-plan.js';
import { PaimonError, isPaimonError } from '../../../../src/paimon/errors.js';
import type { FileLocator, MaintenanceFileEntry, MaintenanceReader, SnapshotLike } from '../../../../src/paimon/maintenance/types.js';
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalFileIO } from '../../../../src/paimon/fs/local-file-io.js';
import { ensureDemoTable } from '../../../../src/paimon/table/demo-table.js';
import { expireSnapshots } from '../../../../procedures/snapshots/expire-snapshots.js';
import { expireChangelogs } from '../../../../procedures/changelogs/expire-changelogs.js';
import { changelogProcedures } from '../../../../procedures/changelogs/index.js';
import { createContext } from '../../../../procedures/framework/context.js';
import { isProcedureError } from '../../../../procedures/framework/errors.js';
import { configSchema } from '../../../../src/config-schema.js';
import { FileSystemProcedureCatalog } from '../../../../src/catalogs.js';
import { callNamed, executorFor, firstRow } from '../../../interop/procedures-support.js';

const NOW = Date.parse('2026-01-01T00:00:00Z');
const none = { retain_max: null, retain_min: null, older_than: null, max_deletes: null };

test("without arguments: Paimon's defaults (no limit, retain_min 1, no time window)", () => {
  assert.deepEqual(changelogRetention(none, NOW), { retainMax: 2147483647, retainMin: 1, maxDeletes: 2147483647, olderThanMillis: Number.NEGATIVE_INFINITY });
});

test('retain_max below retain_min, negative counts and a future older_than are INVALID_ARGUMENT', () => {
  for (const args of [{ retain_max: 2, retain_min: 3 }, { retain_min: -1 }, { max_deletes: -5 }, { older_than: String(NOW + 60_000) }]) {
    assert.throws(() => changelogRetention({ ...none, ...args }, NOW), (e: unknown) => isPaimonError(e, 'INVALID_ARGUMENT'), JSON.stringify(args));
  }
  assert.equal(changelogRetention({ ...none, older_than: String(NOW - 1000) }, NOW).olderThanMillis, NOW - 1000);
});

// --- plan on plain metadata -----------------------------------------------------------------

function add(fileName: string, kind: 'ADD' | 'DELETE' = 'ADD'): MaintenanceFileEntry {
  return { kind, partition: 'p', bucket: 0, level: 0, fileName, fileSize: 10, extraFiles: [], externalPath: null, fileSource: 'APPEND' };
}

function snap(id: number, base: string, delta: string, changelog?: string): SnapshotLike {
  return { id, baseManifestList: base, deltaManifestList: delta, ...(changelog ? { changelogManifestList: changelog } : {}) } as SnapshotLike;
}

const LISTS: Record<string, string[]> = {
  'base-1': [],
  'delta-1': ['m-d1'],
  'cl-1': ['m-c1'],
  'base-2': ['m-d1'],
  'delta-2': ['m-d2'],
  'base-3': ['m-d1', 'm-d2'],
  'delta-3': ['m-d3'],
  'base-10': ['m-d1', 'm-d2', 'm-d3'],
  'delta-10': ['m-d10'],
};
const MANIFESTS: Record<string, MaintenanceFileEntry[]> = {
  'm-d1': [add('f1')],
  'm-c1': [add('c1')],
  'm-d2': [add('f1', 'DELETE'), add('f2')],
  'm-d3': [add('f2', 'DELETE'), add('f3')],
  'm-d10': [add('f10')],
};
const missing = (name: string) => new PaimonError('FILE_NOT_FOUND', `${name} not found`);
const reader: MaintenanceReader = {
  async readManifestList(name) {
    const l = LISTS[name];
    if (l === undefined) throw missing(name);
    return l.map((fileName) => ({ fileName, fileSize: 1 }));
  },
  async readManifest(name) {
    const m = MANIFESTS[name];
    if (m === undefined) throw missing(name);
    return m;
  },
  async readIndexManifest() {
    return [];
  },
};
const locator: FileLocator = {
  manifestPath: (n) => `manifest/${n}`,
  indexManifestPath: (n) => `manifest/${n}`,
  indexFilePath: (r) => `index/${r.fileName}`,
  statisticsPath: (n) => `statistics/${n}`,
  dataFilePath: (e) => `bucket-0/${e.fileName}`,
  extraFilePath: (_e, x) => `bucket-0/${x}`,
};

test('a producer changelog deletes its changelog files and list; a delta-only one what its delta removed; kept: what the end and the earliest snapshot use', async () => {
  const p = await planExpireChangelogs(
    {
      mode: 'range',
      beginInclusive: 1,
      endExclusive: 3,
      changelogs: [snap(1, 'base-1', 'delta-1', 'cl-1'), snap(2, 'base-2', 'delta-2')],
      endChangelog: snap(3, 'base-3', 'delta-3'),
      earliestSnapshot: snap(10, 'base-10', 'delta-10'),
      taggedSnapshots: [],
    },
    reader,
    locator,
  );
  assert.deepEqual(p.changelogIds, [1, 2]);
  assert.deepEqual(p.dataFiles.map((f) => `${f.kind} ${f.path}`).sort(), ['changelog bucket-0/c1', 'data bucket-0/f1']);
  assert.deepEqual(p.manifests.map((f) => f.path), ['manifest/m-c1'], 'm-d1 and m-d2 are still in the end and earliest snapshots');
  // Changelog 1 has a changelog list: only that list is its to clean (its base and delta went with snapshot 1).
  assert.deepEqual(p.manifestLists.map((f) => f.path).sort(), ['manifest/base-2', 'manifest/cl-1', 'manifest/delta-2']);
  assert.equal(p.earliestHint, 3);
  assert.equal(p.deleteHints, false);
});

test('a tag before the changelog keeps the files it holds', async () => {
  const p = await planExpireChangelogs(
    {
      mode: 'range',
      beginInclusive: 2,
      endExclusive: 3,
      changelogs: [snap(2, 'base-2', 'delta-2')],
      endChangelog: snap(3, 'base-3', 'delta-3'),
      earliestSnapshot: snap(10, 'base-10', 'delta-10'),
      taggedSnapshots: [snap(1, 'base-1', 'delta-1')],
    },
    reader,
    locator,
  );
  assert.deepEqual(p.dataFiles, [], 'f1 is live in the tagged snapshot 1');
});

test('the end changelog gone: nothing is expired (Paimon returns 0)', async () => {
  const p = await planExpireChangelogs(
    { mode: 'range', beginInclusive: 1, endExclusive: 3, changelogs: [snap(1, 'base-1', 'delta-1')], endChangelog: null, earliestSnapshot: null, taggedSnapshots: [] },
    reader,
    locator,
  );
  assert.deepEqual(p.changelogIds, []);
  assert.equal(p.earliestHint, null);
  assert.equal(p.warnings.length, 1);
});

// --- the procedure on the demo table, its long-lived changelogs written by our expire_snapshots ---

let root: string;
let decoupled: string;
let n = 0;
const T = 'demo.orders';
const CHANGELOG_DIR = 'demo.db/orders/changelog';

function copyOf(): string {
  const to = join(root, `wh-${n++}`);
  cpSync(decoupled, to, { recursive: true });
  return to;
}

function changelogIds(wh: string): number[] {
  return readdirSync(join(wh, CHANGELOG_DIR)).filter((f) => f.startsWith('changelog-')).map((f) => Number(f.slice(10))).sort((a, b) => a - b);
}

before(async () => {
  root = mkdtempSync(join(process.env.TEST_TMP ?? tmpdir(), 'expire-changelogs-'));
  decoupled = join(root, 'decoupled');
  await ensureDemoTable(decoupled, new LocalFileIO());
  // Every snapshot but the latest expires into changelog/changelog-<id> (changelog retention decoupled).
  const row = firstRow(
    await callNamed(executorFor(decoupled, [expireSnapshots]), 'expire_snapshots', {
      table: T,
      retain_max: 1,
      retain_min: 1,
      older_than: String(Date.now()),
      options: 'changelog.num-retained.max=100',
    }),
  );
  assert.ok(Number(row.deleted_snapshots_count) >= 3);
});
after(() => rmSync(root, { recursive: true, force: true }));

test('retain_max expires the oldest changelogs (positional), keeps the latest one and writes the EARLIEST hint', async () => {
  const wh = copyOf();
  const ids = changelogIds(wh);
  const args = [
    { name: null, value: { kind: 'string' as const, value: T }, offset: 0 },
    { name: null, value: { kind: 'integer' as const, value: 1n, text: '1' }, offset: 1 },
  ];
  const o = await executorFor(wh, changelogProcedures).run(
    { catalog: 'paimon', procedure: 'expire_changelogs', args, statement: 'CALL paimon.sys.expire_changelogs(...)' },
    { user: 'root', connectionId: 1, clientAddress: '127.0.0.1:1', currentDatabase: null },
    new AbortController().signal,
  );
  const row = firstRow(o);
  assert.equal(row.result, String(ids.length - 1));
  assert.deepEqual(changelogIds(wh), [ids[ids.length - 1]]);
  assert.equal(existsSync(join(wh, CHANGELOG_DIR, 'EARLIEST')), true);
});

test('a long-lived changelog deleted between planning and deleting stops the call with CONCURRENT_MODIFICATION, nothing deleted', async () => {
  const wh = copyOf();
  const ids = changelogIds(wh);
  const catalog = new FileSystemProcedureCatalog('paimon', wh, new LocalFileIO());
  const { context } = createContext({
    procedure: 'expire_changelogs',
    catalog,
    caller: { user: 'root', connectionId: 1, clientAddress: 'x', currentDatabase: null },
    signal: new AbortController().signal,
    dryRun: false,
    limits: configSchema.parse({}).procedures,
  });
  const table = await context.resolveTable(T);
  const manager = table.changelogManager();
  const list = manager.sortedChangelogIds.bind(manager);
  let calls = 0;
  manager.sortedChangelogIds = async () => {
    const out = await list();
    // Another expirer removes the earliest changelog right after our plan read the list.
    if (++calls === 1) await manager.deleteChangelog(ids[0]);
    return out;
  };
  const ctx = { ...context, resolveTable: async () => table };
  await assert.rejects(
    expireChangelogs.run({ table: T, retain_max: 1, retain_min: null, older_than: null, max_deletes: null, delete_all: false, dry_run: false }, ctx),
    (e: unknown) => isProcedureError(e, 'CONCURRENT_MODIFICATION') && /were deleted/.test(e.message) && /Nothing was changed/.test(e.message),
  );
  assert.deepEqual(changelogIds(wh), ids.slice(1), 'only the concurrent deletion happened');
});

test('delete_all removes every long-lived changelog and the hints; dry_run first changes nothing', async () => {
  const wh = copyOf();
  const ids = changelogIds(wh);
  const dry = firstRow(await callNamed(executorFor(wh, changelogProcedures), 'expire_changelogs', { table: T, delete_all: true, dry_run: true }));
  assert.equal(dry.deleted_changelogs_count, ids.length);
  assert.deepEqual(changelogIds(wh), ids);
  const row = firstRow(await callNamed(executorFor(wh, changelogProcedures), 'expire_changelogs', { table: T, delete_all: true }));
  assert.equal(row.result, 'Delete all separated changelogs success.');
  assert.deepEqual(changelogIds(wh), []);
  assert.equal(existsSync(join(wh, CHANGELOG_DIR, 'LATEST')), false);
});
