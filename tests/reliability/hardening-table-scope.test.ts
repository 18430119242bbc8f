/**
 * Every procedure works on its table through a view that changes nothing outside the table's
 * directories, whatever the table's metadata names. Tables here are crafted the way a careless
 * or hostile writer could leave them (our own commit path writes the manifests): data files
 * named `../../../../../outside/victim.parquet`, `_EXTERNAL_PATH`s outside the table's
 * `data-file.external-paths`, and a bucket directory that is a symbolic link to a directory
 * outside the warehouse holding a file the metadata references. expire_snapshots would delete
 * those files by Paimon's rules; they are refused with UNSAFE_PATH,
 * naming the path relative to the table and never the warehouse's absolute path, and every
 * file outside is still there. A file under the table's own external path is deleted as usual.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { builtinProcedures } from '../../procedures/index.js';
import { FileSystemCatalog } from '../../src/paimon/catalog/filesystem-catalog.js';
import { LocalFileIO } from '../../src/paimon/fs/local-file-io.js';
import { toBinaryRow } from '../../src/paimon/spec/binary-row.js';
import { parseDataFields } from '../../src/paimon/spec/data-types.js';
import { newAppendFileMeta } from '../../src/paimon/spec/data-file-meta.js';
import { toDeleteEntry, type ManifestEntry } from '../../src/paimon/spec/manifest-entry.js';
import { EMPTY_STATS } from '../../src/paimon/spec/simple-stats.js';
import { callNamed, executorFor } from '../interop/procedures-support.js';
import { tempDir } from '../support/temp-dir.js';

const STRING = { root: 'VARCHAR' as const };

interface Crafted {
  root: string;
  wh: string;
  table: string;
  outside: string;
}

/**
 * Table db.t (append, partition dt, bucket -1): snapshot 1 adds the given files in dt=a/bucket-0,
 * snapshot 2 deletes them (an overwrite), snapshot 3 adds one harmless file.
 */
async function craft(name: string, files: { fileName: string; externalPath?: string }[], options: Record<string, string> = {}): Promise<Crafted> {
  const root = tempDir(`scope-${name}-`);
  const wh = join(root, 'wh');
  const outside = join(root, 'outside');
  mkdirSync(outside, { recursive: true });
  const io = new LocalFileIO({ root: wh });
  const catalog = new FileSystemCatalog(wh, io);
  await catalog.createDatabase('db');
  const t = await catalog.createTable('db.t', {
    fields: parseDataFields([
      { id: 0, name: 'id', type: 'INT' },
      { id: 1, name: 'dt', type: 'STRING' },
    ]),
    partitionKeys: ['dt'],
    options: { bucket: '-1', ...options },
  });
  const partition = toBinaryRow([STRING], ['a']);
  const entry = (f: { fileName: string; externalPath?: string }): ManifestEntry => ({
    kind: 'ADD',
    partition,
    bucket: 0,
    totalBuckets: -1,
    file: newAppendFileMeta({ fileName: f.fileName, fileSize: 12n, rowCount: 1n, valueStats: EMPTY_STATS, minSequenceNumber: 0n, maxSequenceNumber: 0n, schemaId: 0n, externalPath: f.externalPath ?? null, creationTime: 1n }),
  });
  const commit = t.newCommit('crafter');
  const added = files.map(entry);
  await commit.commit({ kind: 'APPEND', deltaEntries: added, commitIdentifier: 1n });
  await t.newCommit('crafter').commit({ kind: 'OVERWRITE', deltaEntries: added.map(toDeleteEntry), commitIdentifier: 2n });
  const harmless = entry({ fileName: 'data-harmless.parquet' });
  mkdirSync(join(t.location, 'dt=a', 'bucket-0'), { recursive: true });
  writeFileSync(join(t.location, 'dt=a', 'bucket-0', 'data-harmless.parquet'), 'harmless');
  await t.newCommit('crafter').commit({ kind: 'APPEND', deltaEntries: [harmless], commitIdentifier: 3n });
  return { root, wh, table: t.location, outside };
}

function assertRefused(o: Awaited<ReturnType<typeof callNamed>>, c: Crafted, what: string): string {
  assert.equal(o.ok, false, `${what}: the call succeeded`);
  if (o.ok) return '';
  assert.equal(o.error.code, 'UNSAFE_PATH', `${what}: ${o.error.code} ${o.error.message}`);
  assert.equal(o.error.errno, 1105);
  assert.ok(!o.error.message.includes(c.root), `${what}: the message names a server path: ${o.error.message}`);
  return o.error.message;
}

describe('procedures change nothing outside their table, whatever its metadata names', () => {
  test("a data file named with '..' out of the warehouse: expire_snapshots refuses it, dry run included", async () => {
    const c = await craft('dots', [{ fileName: '../../../../../outside/victim.parquet' }]);
    writeFileSync(join(c.outside, 'victim.parquet'), 'victim');
    const ex = executorFor(c.wh, builtinProcedures);
    const dry = await callNamed(ex, 'expire_snapshots', { table: 'db.t', retain_max: 1, retain_min: 1, dry_run: true });
    assertRefused(dry, c, 'dry run');
    const o = await callNamed(ex, 'expire_snapshots', { table: 'db.t', retain_max: 1, retain_min: 1 });
    const message = assertRefused(o, c, 'expire_snapshots');
    assert.match(message, /outside the table/);
    assert.equal(readFileSync(join(c.outside, 'victim.parquet'), 'utf8'), 'victim');
    // Nothing of the phase ran: the snapshots it would have expired are all still there.
    for (const id of [1, 2, 3]) assert.ok(existsSync(join(c.table, 'snapshot', `snapshot-${id}`)), `snapshot-${id}`);
  });

  test('an _EXTERNAL_PATH outside data-file.external-paths is refused; one inside is deleted', async () => {
    const ext = tempDir('scope-ext-');
    const owned = join(ext, 'dt=a', 'bucket-0', 'data-ext.parquet');
    const c = await craft('ext', [{ fileName: 'data-ext.parquet', externalPath: owned }], { 'data-file.external-paths': `file://${ext}` });
    mkdirSync(join(ext, 'dt=a', 'bucket-0'), { recursive: true });
    writeFileSync(owned, 'owned');
    const ex = executorFor(c.wh, builtinProcedures);
    const ok = await callNamed(ex, 'expire_snapshots', { table: 'db.t', retain_max: 1, retain_min: 1 });
    assert.ok(ok.ok, ok.ok ? '' : `${ok.error.code} ${ok.error.message}`);
    assert.equal(existsSync(owned), false, 'the file under the table’s own external path was expired');

    const d = await craft('ext-out', [{ fileName: 'data-x.parquet', externalPath: join(tempDir('scope-not-ext-'), 'victim.parquet') }], { 'data-file.external-paths': `file://${ext}` });
    const o = await callNamed(executorFor(d.wh, builtinProcedures), 'expire_snapshots', { table: 'db.t', retain_max: 1, retain_min: 1 });
    assertRefused(o, d, 'expire_snapshots of a stray external path');
  });

  test('a bucket directory that is a symbolic link out of the warehouse: the file behind it is not deleted', async () => {
    const c = await craft('link', [{ fileName: 'data-behind-link.parquet' }]);
    const bucket = join(c.table, 'dt=a', 'bucket-0');
    // The bucket directory's content moves outside and a link takes its place.
    const target = join(c.outside, 'bucket-dir');
    renameSync(bucket, target);
    symlinkSync(target, bucket);
    writeFileSync(join(target, 'data-behind-link.parquet'), 'behind the link');
    const ex = executorFor(c.wh, builtinProcedures);
    const message = assertRefused(await callNamed(ex, 'expire_snapshots', { table: 'db.t', retain_max: 1, retain_min: 1 }), c, 'expire_snapshots');
    console.log(message);
    assert.match(message, /'dt=a\/bucket-0\/data-behind-link\.parquet'/, 'the path is named relative to the table');
    assert.match(message, /symbolic link/);
    assert.equal(readFileSync(join(target, 'data-behind-link.parquet'), 'utf8'), 'behind the link');
    assert.equal(readFileSync(join(target, 'data-harmless.parquet'), 'utf8'), 'harmless');
    // remove_orphan_files does not walk into the linked bucket either (it reports it instead).
    const orphans = await callNamed(ex, 'remove_orphan_files', { table: 'db.t', older_than: new Date(Date.now() - 1000).toISOString().slice(0, 19).replace('T', ' '), force: true });
    assert.ok(orphans.ok || orphans.error.code !== 'INTERNAL_ERROR', orphans.ok ? '' : orphans.error.message);
    assert.equal(readFileSync(join(target, 'data-behind-link.parquet'), 'utf8'), 'behind the link');
  });
});
