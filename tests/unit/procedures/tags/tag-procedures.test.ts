/**
 * The tag procedures on the embedded demo table (written by this library), through the real
 * executor: argument binding (Spark and Flink names, positional), errors, dry runs that change
 * nothing, create-if-absent under concurrency, and a tag deletion on an expired snapshot that
 * deletes only the files nothing else reaches. Java's own behaviour on the same operations is
 * checked in tests/interop/procedures-tags.test.ts.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { LocalFileIO } from '../../../../src/paimon/fs/local-file-io.js';
import { ensureDemoTable } from '../../../../src/paimon/table/demo-table.js';
import { FileSystemCatalog } from '../../../../src/paimon/catalog/filesystem-catalog.js';
import { isPaimonError } from '../../../../src/paimon/errors.js';
import { tagProcedures } from '../../../../procedures/tags/index.js';
import { compact } from '../../../../procedures/compaction/compact.js';
import { expireSnapshots } from '../../../../procedures/snapshots/expire-snapshots.js';
import { runTagDeletions } from '../../../../procedures/tags/tag-cleanup.js';
import { createContext } from '../../../../procedures/framework/context.js';
import { isProcedureError } from '../../../../procedures/framework/errors.js';
import { configSchema } from '../../../../src/config-schema.js';
import { FileSystemProcedureCatalog } from '../../../../src/catalogs.js';
import { callNamed, executorFor, firstRow } from '../../../interop/procedures-support.js';
import type { ProcedureExecutor, CallOutcome } from '../../../../procedures/framework/executor.js';
import type { CallArgument } from '../../../../procedures/framework/binding.js';

let root: string;
/** Demo table with tags t1 (snapshot 1), t3 (snapshot 3), a full compaction (snapshot 5), snapshots 1-4 expired. */
let expired: string;
let fresh: string;
const TABLE = 'demo.db/orders';

function tree(wh: string): string[] {
  const dir = join(wh, TABLE);
  return (readdirSync(dir, { recursive: true, withFileTypes: true }) as import('node:fs').Dirent[])
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

function copy(from: string, name: string): string {
  const to = join(root, name);
  cpSync(from, to, { recursive: true, preserveTimestamps: true });
  return to;
}

function exec(wh: string): ProcedureExecutor {
  return executorFor(wh, [...tagProcedures, compact, expireSnapshots]);
}

async function positional(e: ProcedureExecutor, procedure: string, values: (string | number)[]): Promise<CallOutcome> {
  const args: CallArgument[] = values.map((v, i) => ({
    name: null,
    value: typeof v === 'string' ? { kind: 'string', value: v } : { kind: 'integer', value: BigInt(v), text: String(v) },
    offset: i,
  }));
  return e.run({ catalog: 'paimon', procedure, args, statement: `CALL paimon.sys.${procedure}(...)` }, { user: 'root', connectionId: 1, clientAddress: '127.0.0.1:1', currentDatabase: null }, new AbortController().signal);
}

function errorCode(o: CallOutcome): string {
  assert.equal(o.ok, false, 'the call should fail');
  return o.ok ? '' : o.error.code;
}

before(async () => {
  root = mkdtempSync(join(process.env.TEST_TMP ?? tmpdir(), 'tag-procs-'));
  fresh = join(root, 'fresh');
  await ensureDemoTable(fresh, new LocalFileIO());
  expired = copy(fresh, 'expired');
  const e = exec(expired);
  firstRow(await callNamed(e, 'create_tag', { table: 'demo.orders', tag: 't1', snapshot_id: 1 }));
  firstRow(await callNamed(e, 'create_tag', { table: 'demo.orders', tag: 't3', snapshot: 3 }));
  firstRow(await callNamed(e, 'compact', { table: 'demo.orders' }));
  const ex = firstRow(await callNamed(e, 'expire_snapshots', { table: 'demo.orders', retain_max: 1, retain_min: 1, older_than: String(Date.now()) }));
  assert.ok(Number(ex.deleted_snapshots_count) >= 4);
});
after(() => rmSync(root, { recursive: true, force: true }));

describe('create_tag / create_tag_from_timestamp', () => {
  test('positional and named (snapshot and snapshot_id) bind; result true with the snapshot', async () => {
    const wh = copy(fresh, 'create');
    const e = exec(wh);
    const r = firstRow(await positional(e, 'create_tag', ['demo.orders', 'p2', 2]));
    assert.equal(r.result, true);
    assert.equal(r.snapshot_id, 2);
    assert.equal(firstRow(await callNamed(e, 'create_tag', { table: 'demo.orders', tag: 'latest' })).snapshot_id, 4);
    const tag = JSON.parse(readFileSync(join(wh, TABLE, 'tag', 'tag-p2'), 'utf8'));
    assert.equal(tag.id, 2);
    assert.equal(tag.tagCreateTime, undefined, 'no retention: the plain snapshot JSON');
    const ttl = firstRow(await callNamed(e, 'create_tag', { table: 'demo.orders', tag: 'ttl', snapshot_id: 3, time_retained: '1 d' }));
    assert.equal(ttl.time_retained_ms, 86_400_000);
    const ttlTag = JSON.parse(readFileSync(join(wh, TABLE, 'tag', 'tag-ttl'), 'utf8'));
    assert.equal(String(ttlTag.tagTimeRetained), '86400');
  });

  test('an existing name is TAG_ALREADY_EXISTS; a missing snapshot is SNAPSHOT_NOT_FOUND; a blank name INVALID_ARGUMENT', async () => {
    const wh = copy(fresh, 'create-errors');
    const e = exec(wh);
    firstRow(await callNamed(e, 'create_tag', { table: 'demo.orders', tag: 'a', snapshot_id: 1 }));
    const before = readFileSync(join(wh, TABLE, 'tag', 'tag-a'), 'utf8');
    assert.equal(errorCode(await callNamed(e, 'create_tag', { table: 'demo.orders', tag: 'a', snapshot_id: 2 })), 'TAG_ALREADY_EXISTS');
    assert.equal(readFileSync(join(wh, TABLE, 'tag', 'tag-a'), 'utf8'), before, 'the existing tag is untouched');
    assert.equal(errorCode(await callNamed(e, 'create_tag', { table: 'demo.orders', tag: 'b', snapshot_id: 99 })), 'SNAPSHOT_NOT_FOUND');
    assert.equal(errorCode(await callNamed(e, 'create_tag', { table: 'demo.orders', tag: '  ' })), 'INVALID_ARGUMENT');
    assert.equal(errorCode(await callNamed(e, 'create_tag', { table: 'demo.orders', tag: 'x', time_retained: 'soon' })), 'INVALID_ARGUMENT');
  });

  test('two concurrent creates of one name: exactly one succeeds, the other is TAG_ALREADY_EXISTS', async () => {
    const wh = copy(fresh, 'create-race');
    const t = await new FileSystemCatalog(wh, new LocalFileIO()).getTable('demo.orders');
    const s1 = await t.snapshotManager().snapshot(1);
    const s2 = await t.snapshotManager().snapshot(2);
    const results = await Promise.allSettled([t.tagManager().createTag(s1, 'race'), t.tagManager().createTag(s2, 'race')]);
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
    const rejected = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    assert.ok(isPaimonError(rejected.reason, 'TAG_ALREADY_EXISTS'));
    const winner = results[0].status === 'fulfilled' ? 1 : 2;
    assert.equal((await t.tagManager().getOrThrow('race')).id, winner, "the winner's snapshot is the tag");
  });

  test('create_tag_from_timestamp takes the first snapshot at or after the time; none is SNAPSHOT_NOT_FOUND', async () => {
    const wh = copy(fresh, 'from-ts');
    const e = exec(wh);
    const t = await new FileSystemCatalog(wh, new LocalFileIO()).getTable('demo.orders');
    const s3 = await t.snapshotManager().snapshot(3);
    const r = firstRow(await callNamed(e, 'create_tag_from_timestamp', { table: 'demo.orders', tag: 'ts', timestamp: s3.timeMillis }));
    assert.equal(r.snapshot, 3);
    assert.equal(r.tagName, 'ts');
    assert.equal(r.commit_time, s3.timeMillis);
    assert.equal(errorCode(await callNamed(e, 'create_tag_from_timestamp', { table: 'demo.orders', tag: 'never', timestamp: Date.now() + 86_400_000 })), 'SNAPSHOT_NOT_FOUND');
  });
});

describe('rename_tag / replace_tag', () => {
  test("Flink's tagName/targetTagName bind; the target must not exist; the source must", async () => {
    const wh = copy(fresh, 'rename');
    const e = exec(wh);
    firstRow(await callNamed(e, 'create_tag', { table: 'demo.orders', tag: 'a', snapshot_id: 1 }));
    firstRow(await callNamed(e, 'create_tag', { table: 'demo.orders', tag: 'b', snapshot_id: 2 }));
    assert.equal(errorCode(await callNamed(e, 'rename_tag', { table: 'demo.orders', tag: 'a', target_tag: 'b' })), 'TAG_ALREADY_EXISTS');
    assert.equal(errorCode(await callNamed(e, 'rename_tag', { table: 'demo.orders', tag: 'zz', target_tag: 'c' })), 'TAG_NOT_FOUND');
    const r = firstRow(await callNamed(e, 'rename_tag', { table: 'demo.orders', tagName: 'a', targetTagName: 'c' }));
    assert.equal(r.snapshot_id, 1);
    assert.deepEqual(readdirSync(join(wh, TABLE, 'tag')).sort(), ['tag-b', 'tag-c']);
  });

  test('replace_tag moves an existing tag; dry_run changes nothing; a missing tag is TAG_NOT_FOUND', async () => {
    const wh = copy(fresh, 'replace');
    const e = exec(wh);
    firstRow(await callNamed(e, 'create_tag', { table: 'demo.orders', tag: 'a', snapshot_id: 1, time_retained: '1 h' }));
    const path = join(wh, TABLE, 'tag', 'tag-a');
    const before = readFileSync(path, 'utf8');
    const dry = firstRow(await callNamed(e, 'replace_tag', { table: 'demo.orders', tag: 'a', snapshot_id: 3, dry_run: true }));
    assert.equal(dry.previous_snapshot_id, 1);
    assert.equal(dry.previous_time_retained_ms, 3_600_000);
    assert.equal(dry.snapshot_id, 3);
    assert.equal(readFileSync(path, 'utf8'), before);
    firstRow(await positional(e, 'replace_tag', ['demo.orders', 'a', 3]));
    const after = JSON.parse(readFileSync(path, 'utf8'));
    assert.equal(after.id, 3);
    assert.equal(after.tagTimeRetained, undefined, 'replaced without time_retained: no retention');
    assert.equal(errorCode(await callNamed(e, 'replace_tag', { table: 'demo.orders', tag: 'nope' })), 'TAG_NOT_FOUND');
  });

  test('replace_tag with create_if_missing creates a missing tag with the file create_tag writes, and replaces an existing one', async () => {
    const wh = copy(fresh, 'replace-create');
    const e = exec(wh);
    const tagDir = join(wh, TABLE, 'tag');
    const dry = firstRow(await callNamed(e, 'replace_tag', { table: 'demo.orders', tag: 'n', snapshot_id: 2, create_if_missing: true, dry_run: true }));
    assert.deepEqual([dry.created, dry.previous_snapshot_id, dry.snapshot_id], [true, null, 2]);
    assert.equal(existsSync(join(tagDir, 'tag-n')), false, 'a dry run creates nothing');
    const r = firstRow(await callNamed(e, 'replace_tag', { table: 'demo.orders', tag: 'n', snapshot_id: 2, create_if_missing: true }));
    assert.deepEqual([r.created, r.previous_snapshot_id, r.snapshot_id], [true, null, 2]);
    firstRow(await callNamed(e, 'create_tag', { table: 'demo.orders', tag: 'm', snapshot_id: 2 }));
    assert.equal(readFileSync(join(tagDir, 'tag-n'), 'utf8'), readFileSync(join(tagDir, 'tag-m'), 'utf8'), 'the same file as create_tag');
    const again = firstRow(await callNamed(e, 'replace_tag', { table: 'demo.orders', tag: 'n', snapshot_id: 3, create_if_missing: true }));
    assert.deepEqual([again.created, again.previous_snapshot_id, again.snapshot_id], [false, 2, 3]);
    assert.equal(JSON.parse(readFileSync(join(tagDir, 'tag-n'), 'utf8')).id, 3);
  });
});

describe('delete_tag / expire_tags', () => {
  test('a missing tag is TAG_NOT_FOUND and nothing is deleted; if_exists skips it; blank list entries are refused', async () => {
    const wh = copy(expired, 'delete-missing');
    const e = exec(wh);
    const before = tree(wh);
    assert.equal(errorCode(await callNamed(e, 'delete_tag', { table: 'demo.orders', tag: 't3,nope' })), 'TAG_NOT_FOUND');
    assert.equal(errorCode(await callNamed(e, 'delete_tag', { table: 'demo.orders', tag: 't3,,t1' })), 'INVALID_ARGUMENT');
    assert.deepEqual(tree(wh), before);
    const r = firstRow(await callNamed(e, 'delete_tag', { table: 'demo.orders', tag: 'nope,t3', if_exists: true }));
    assert.equal(r.result, true);
    assert.equal(r.deleted_tags, 't3');
    assert.equal(r.missing_tags, 'nope');
  });

  test('deleting a tag on an expired snapshot: dry run lists the files and changes nothing; the real run deletes exactly those, and what t3 and the latest snapshot use stays', async () => {
    const wh = copy(expired, 'delete-expired');
    const e = exec(wh);
    const before = tree(wh);
    const dry = firstRow(await callNamed(e, 'delete_tag', { table: 'demo.orders', tag: 't1', dry_run: true }));
    assert.equal(dry.dry_run, true);
    assert.deepEqual(tree(wh), before, 'a dry run changes nothing');
    const kinds = JSON.parse(String(dry.deleted_by_kind));
    assert.equal(kinds.tag.files, 1);
    const real = firstRow(await callNamed(e, 'delete_tag', { table: 'demo.orders', tag: 't1' }));
    assert.equal(real.deleted_files, dry.deleted_files);
    assert.equal(real.deleted_by_kind, dry.deleted_by_kind);
    const gone = before.filter((f) => !tree(wh).includes(f));
    assert.equal(gone.length, Number(dry.deleted_files));
    assert.ok(gone.includes('tag/tag-t1'));
    // Everything t3 and the latest snapshot reference is still there.
    const t = await new FileSystemCatalog(wh, new LocalFileIO()).getTable('demo.orders');
    const r = t.maintenanceReader();
    for (const s of [(await t.tagManager().getOrThrow('t3')) as never, await t.snapshotManager().latestSnapshot()]) {
      const snap = s as unknown as { baseManifestList: string; deltaManifestList: string };
      for (const list of [snap.baseManifestList, snap.deltaManifestList]) {
        assert.ok(existsSync(join(wh, TABLE, 'manifest', list)), list);
        for (const m of await r.readManifestList(list)) {
          assert.ok(existsSync(join(wh, TABLE, 'manifest', m.fileName)), m.fileName);
          for (const en of await r.readManifest(m.fileName)) if (en.kind === 'ADD') assert.ok(existsSync(r.dataFilePath(en)) || !gone.some((g) => r.dataFilePath(en).endsWith(g)), en.fileName);
        }
      }
    }
  });

  test('a deletion killed after the tag file was renamed: the next delete_tag finishes it, leaving what an uninterrupted run leaves', async () => {
    const whole = copy(expired, 'delete-whole');
    firstRow(await callNamed(exec(whole), 'delete_tag', { table: 'demo.orders', tag: 't1' }));
    const wh = copy(expired, 'delete-interrupted');
    // What a kill right after the first step leaves: the tag renamed aside, none of its files deleted.
    const tagDir = join(wh, TABLE, 'tag');
    writeFileSync(join(tagDir, 'deleting-tag-t1'), readFileSync(join(tagDir, 'tag-t1')));
    rmSync(join(tagDir, 'tag-t1'));
    const e = exec(wh);
    const listed = await callNamed(e, 'delete_tag', { table: 'demo.orders', tag: 't1' });
    assert.ok(listed.ok, listed.ok ? '' : `${listed.error.code} ${listed.error.message}`);
    assert.equal(firstRow(listed).deleted_tags, 't1', 'the interrupted tag is not missing: its cleanup is finished');
    assert.deepEqual(tree(wh), tree(whole), 'the files an uninterrupted delete_tag leaves');
    assert.ok(!readdirSync(tagDir).some((f) => f.startsWith('deleting-tag-')), 'the renamed tag file goes last');
  });

  test('a tag whose snapshot still exists: only the tag file goes', async () => {
    const wh = copy(fresh, 'delete-live');
    const e = exec(wh);
    firstRow(await callNamed(e, 'create_tag', { table: 'demo.orders', tag: 'a', snapshot_id: 2 }));
    const before = tree(wh);
    const r = firstRow(await positional(e, 'delete_tag', ['demo.orders', 'a']));
    assert.equal(r.deleted_files, 1);
    assert.deepEqual(before.filter((f) => !tree(wh).includes(f)), ['tag/tag-a']);
  });

  test('expire_tags: retention passed or older_than; none is "No expired tags."; dry run changes nothing', async () => {
    const wh = copy(fresh, 'expire-tags');
    const e = exec(wh);
    firstRow(await callNamed(e, 'create_tag', { table: 'demo.orders', tag: 'short', snapshot_id: 1, time_retained: '1 ms' }));
    firstRow(await callNamed(e, 'create_tag', { table: 'demo.orders', tag: 'long', snapshot_id: 2, time_retained: '1 d' }));
    firstRow(await callNamed(e, 'create_tag', { table: 'demo.orders', tag: 'plain', snapshot_id: 3 }));
    await new Promise((r) => setTimeout(r, 20));
    const before = tree(wh);
    const dry = await callNamed(e, 'expire_tags', { table: 'demo.orders', dry_run: true });
    assert.ok(dry.ok);
    assert.deepEqual(dry.ok ? dry.result.rows.map((x) => x.expired_tags) : [], ['short']);
    assert.deepEqual(tree(wh), before);
    const real = await callNamed(e, 'expire_tags', { table: 'demo.orders' });
    assert.deepEqual(real.ok ? real.result.rows.map((x) => x.expired_tags) : [], ['short']);
    const none = firstRow(await callNamed(e, 'expire_tags', { table: 'demo.orders' }));
    assert.equal(none.expired_tags, 'No expired tags.');
    const older = await callNamed(e, 'expire_tags', { table: 'demo.orders', older_than: String(Date.now() + 1000) });
    assert.deepEqual(older.ok ? older.result.rows.map((x) => x.expired_tags).sort() : [], ['long', 'plain']);
  });

  test('a tag added between plan and act is CONCURRENT_MODIFICATION and nothing is deleted', async () => {
    const wh = copy(expired, 'delete-race');
    const before = tree(wh);
    const catalog = new FileSystemProcedureCatalog('paimon', wh, new LocalFileIO());
    const t = await catalog.getTable('demo.orders');
    const { context } = createContext({
      procedure: 'delete_tag',
      catalog,
      caller: { user: 'root', connectionId: 1, clientAddress: '127.0.0.1:1', currentDatabase: null },
      signal: new AbortController().signal,
      dryRun: false,
      limits: configSchema.parse({}).procedures,
    });
    let injected = false;
    const racing = {
      ...context,
      throwIfAborted() {
        // The first check after planning: another writer tags the table meanwhile.
        if (!injected) {
          injected = true;
          writeFileSync(join(wh, TABLE, 'tag', 'tag-intruder'), readFileSync(join(wh, TABLE, 'tag', 'tag-t3')));
        }
      },
    };
    await assert.rejects(runTagDeletions('delete_tag', t, ['t1'], racing, false), (e: unknown) => isProcedureError(e, 'CONCURRENT_MODIFICATION') && /Nothing was changed/.test((e as Error).message));
    assert.deepEqual(tree(wh).filter((f) => f !== 'tag/tag-intruder'), before);
  });
});

describe('trigger_tag_automatic_creation', () => {
  test('without tag.automatic-creation nothing is created; with it, dry run reports the tag and changes nothing, the real run creates it', async () => {
    const wh = copy(fresh, 'auto');
    const e = exec(wh);
    const none = firstRow(await positional(e, 'trigger_tag_automatic_creation', ['demo.orders']));
    assert.equal(none.result, true);
    assert.equal(none.created_tags, '');
    const dir = join(wh, TABLE, 'schema');
    const schema = JSON.parse(readFileSync(join(dir, 'schema-0'), 'utf8'));
    schema.id = 1;
    Object.assign(schema.options, { 'tag.automatic-creation': 'process-time', 'tag.creation-period': 'hourly' });
    writeFileSync(join(dir, 'schema-1'), JSON.stringify(schema));
    const before = tree(wh);
    const dry = firstRow(await callNamed(e, 'trigger_tag_automatic_creation', { table: 'demo.orders', dry_run: true }));
    assert.match(String(dry.created_tags), /^\d{4}-\d{2}-\d{2} \d{2}$/);
    assert.deepEqual(tree(wh), before);
    const real = firstRow(await callNamed(e, 'trigger_tag_automatic_creation', { table: 'demo.orders' }));
    assert.equal(real.created_tags, dry.created_tags);
    assert.ok(existsSync(join(wh, TABLE, 'tag', `tag-${real.created_tags}`)));
    const tag = JSON.parse(readFileSync(join(wh, TABLE, 'tag', `tag-${real.created_tags}`), 'utf8'));
    assert.equal(tag.id, 1, 'the first snapshot gets the tag of the hour before it');
    const again = firstRow(await callNamed(e, 'trigger_tag_automatic_creation', { table: 'demo.orders' }));
    assert.equal(again.created_tags, '', 'nothing new until the next hour has passed');
    // TagManager.validateNoAutoTag: a second auto-pattern name on an auto-tagged snapshot is refused; other names are fine.
    assert.equal(errorCode(await callNamed(e, 'create_tag', { table: 'demo.orders', tag: '2000-01-01 00', snapshot_id: 1 })), 'INVALID_ARGUMENT');
    firstRow(await callNamed(e, 'create_tag', { table: 'demo.orders', tag: 'manual', snapshot_id: 1 }));
    firstRow(await callNamed(e, 'create_tag', { table: 'demo.orders', tag: '2000-01-01 00', snapshot_id: 2 }));
  });
});
