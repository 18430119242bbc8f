/**
 * TableScopedFileIO: a procedure's view of the store changes and lists only its table's
 * directory. Against real stores: local files and S3 (moto, as file-io.test.ts starts it).
 * Every refused call is checked to have left the outside object in place.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { FileIO } from '../../../../src/paimon/fs/file-io.js';
import { LocalFileIO } from '../../../../src/paimon/fs/local-file-io.js';
import { isUnsafePathError, TableScopedFileIO } from '../../../../src/paimon/fs/table-scoped-file-io.js';
import { isPaimonError } from '../../../../src/paimon/errors.js';
import { createBucket, s3FileIO, startS3Peer, type S3Peer } from './s3-peer.js';

/** Paths relative to the warehouse that are NOT inside table `t`, however they are spelled. */
const OUTSIDE = [
  'db.db/t2/data-1.parquet', // sibling sharing the prefix
  'db.db/t2', // as a directory
  'db.db/t/../t2/data-1.parquet',
  'db.db/t/bucket-0/../../t2/data-1.parquet',
  'db.db/t/%2e%2e/t2/data-1.parquet',
  'db.db/t/%2E%2E/t2/data-1.parquet',
  'db.db/t//../t2/data-1.parquet',
  'db.db/u/x',
  'db.db',
  'other.parquet',
];

/** Percent-escapes are decoded in file: URIs and by object-store proxies, but are literal characters of a bare local path. */
const ENCODED = (rel: string): boolean => rel.includes('%');

function scenario(name: string, setup: () => Promise<{ io: FileIO; wh: string; cleanup?: () => Promise<void> }>, objectStore: boolean, bareLocal = false): void {
  describe(`TableScopedFileIO on ${name}`, () => {
    let io: FileIO;
    let wh: string;
    let scoped: TableScopedFileIO;
    let cleanup: (() => Promise<void>) | undefined;
    const at = (rel: string): string => `${wh}/${rel}`;
    before(async () => {
      ({ io, wh, cleanup } = await setup());
      scoped = new TableScopedFileIO(io, at('db.db/t'));
      await io.writeFile(at('db.db/t/bucket-0/data-0.parquet'), 'inside');
      await io.writeFile(at('db.db/t2/data-1.parquet'), 'outside');
      await io.writeFile(at('db.db/u/x'), 'outside');
      await io.writeFile(at('other.parquet'), 'outside');
    });
    after(async () => {
      await cleanup?.();
    });

    const refused = async (what: string, fn: () => Promise<unknown>): Promise<void> => {
      await assert.rejects(fn(), (e: unknown) => {
        assert.ok(isPaimonError(e, 'INVALID_ARGUMENT') && isUnsafePathError(e), `${what}: ${String(e)}`);
        assert.ok(!(e as Error).message.includes(wh), `${what}: message names the warehouse: ${(e as Error).message}`);
        return true;
      });
    };

    test('changes and listings outside the table are refused, before the store is touched', async () => {
      for (const rel of OUTSIDE) {
        // On an object store the '//' and '%2e%2e' spellings are refused as unclean keys; locally they resolve outside.
        if (bareLocal && ENCODED(rel)) {
          assert.equal(scoped.contains(at(rel)), true, `${rel}: a literal '%2e%2e' directory inside the table`);
          continue;
        }
        const p = at(rel);
        await refused(`delete ${rel}`, () => scoped.delete(p));
        await refused(`deleteMany ${rel}`, () => scoped.deleteMany([at('db.db/t/bucket-0/data-0.parquet'), p]));
        await refused(`deleteDirectory ${rel}`, () => scoped.deleteDirectory(p));
        await refused(`rename from ${rel}`, () => scoped.rename(p, at('db.db/t/moved')));
        await refused(`rename to ${rel}`, () => scoped.rename(at('db.db/t/bucket-0/data-0.parquet'), p));
        await refused(`write ${rel}`, () => scoped.writeFile(p, 'x'));
        await refused(`create ${rel}`, () => scoped.tryCreateAtomic(p, 'x'));
        await refused(`copy to ${rel}`, () => scoped.copyFile(at('db.db/t/bucket-0/data-0.parquet'), p, true));
        await refused(`list ${rel}`, async () => {
          for await (const _ of scoped.list(p)) void _;
        });
        await refused(`listRecursive ${rel}`, async () => {
          for await (const _ of scoped.listRecursive(p)) void _;
        });
        if (scoped.listBatches) {
          await refused(`listBatches ${rel}`, async () => {
            for await (const _ of scoped.listBatches!(p)) void _;
          });
        }
        assert.equal(scoped.contains(p), false, rel);
      }
      await refused('delete the table directory itself', () => scoped.deleteDirectory(at('db.db/t')));
      // Nothing outside moved, and the batch with one stray path deleted nothing inside either.
      for (const rel of ['db.db/t2/data-1.parquet', 'db.db/u/x', 'other.parquet']) assert.equal((await io.readFile(at(rel))).toString(), 'outside', rel);
      assert.equal((await io.readFile(at('db.db/t/bucket-0/data-0.parquet'))).toString(), 'inside');
    });

    test('inside the table everything works, also spelled with a harmless ./ locally; reads go anywhere', async () => {
      const inside = at('db.db/t/bucket-0/data-9.parquet');
      await scoped.writeFile(inside, 'nine');
      assert.equal(await scoped.tryCreateAtomic(at('db.db/t/snapshot/snapshot-1'), 's1'), true);
      const listed: string[] = [];
      for await (const f of scoped.listRecursive(at('db.db/t'))) listed.push(f.path.slice(wh.length + 1));
      assert.deepEqual(listed.sort(), ['db.db/t/bucket-0/data-0.parquet', 'db.db/t/bucket-0/data-9.parquet', 'db.db/t/snapshot/snapshot-1']);
      assert.equal(await scoped.rename(inside, at('db.db/t/bucket-0/data-10.parquet')), true);
      assert.equal(await scoped.delete(at('db.db/t/bucket-0/data-10.parquet')), true);
      if (!objectStore) assert.equal(scoped.contains(at('db.db/t/./bucket-0/x')), true);
      // Reading a file of another table is not a change.
      assert.equal((await scoped.readFile(at('db.db/t2/data-1.parquet'))).toString(), 'outside');
    });
  });
}

scenario(
  'local files',
  async () => {
    const wh = await mkdtemp(path.join(process.env.TEST_TMP ?? tmpdir(), 'scoped-io-'));
    return { io: new LocalFileIO({ root: wh }), wh, cleanup: () => rm(wh, { recursive: true, force: true }) };
  },
  false,
  true,
);

scenario(
  'local files as file: URIs',
  async () => {
    const wh = await mkdtemp(path.join(process.env.TEST_TMP ?? tmpdir(), 'scoped-io-uri-'));
    return { io: new LocalFileIO({ root: wh }), wh: `file://${wh}`, cleanup: () => rm(wh, { recursive: true, force: true }) };
  },
  false,
);

let peer: S3Peer;
scenario(
  's3 (moto)',
  async () => {
    peer = await startS3Peer();
    await createBucket(peer, 'scoped');
    const io = s3FileIO(peer);
    return {
      io,
      wh: `s3://scoped/wh-${Date.now()}`,
      cleanup: async () => {
        await io.close();
        await peer.stop();
      },
    };
  },
  true,
);

describe('object-store keys that are not clean are refused even inside the prefix', () => {
  test('empty, dot and encoded segments', () => {
    const scoped = new TableScopedFileIO(new LocalFileIO(), 's3://b/wh/db.db/t');
    for (const k of ['s3://b/wh/db.db/t//x', 's3://b/wh/db.db/t/./x', 's3://b/wh/db.db/t/%2e/x', 's3://b/wh/db.db/t/a%2Fb', 's3a://b/wh/db.db/t/../t/x']) {
      assert.equal(scoped.contains(k), false, k);
    }
    for (const k of ['s3://b/wh/db.db/t/x', 's3a://b/wh/db.db/t/bucket-0/f.orc', 's3://b/wh/db.db/t']) assert.equal(scoped.contains(k), true, k);
    assert.equal(scoped.contains('s3://other/wh/db.db/t/x'), false, 'another bucket');
  });
});

describe('stores of other schemes (a catalog brings its own FileIO): keys taken as written', () => {
  test('an empty authority is the default file system; unclean segments and siblings are refused', () => {
    const scoped = new TableScopedFileIO(new LocalFileIO(), 'hdfs:///wh/db.db/t');
    for (const k of ['hdfs:///wh/db.db/t/bucket-0/f.orc', 'hdfs:///wh/db.db/t']) assert.equal(scoped.contains(k), true, k);
    for (const k of ['hdfs:///wh/db.db/t/../t2/x', 'hdfs:///wh/db.db/t2/x', 'hdfs://nn:8020/wh/db.db/t/x', 'hdfs:///wh/db.db/t//x', '/wh/db.db/t/x']) {
      assert.equal(scoped.contains(k), false, k);
    }
    const named = new TableScopedFileIO(new LocalFileIO(), 'hdfs://nn:8020/wh/db.db/t');
    assert.equal(named.contains('hdfs://nn:8020/wh/db.db/t/snapshot/LATEST'), true);
    assert.equal(named.contains('hdfs://other:8020/wh/db.db/t/snapshot/LATEST'), false, 'another name node');
  });
});

describe('the scope: external paths, links, a read-only view, messages', () => {
  let wh: string;
  let io: LocalFileIO;
  before(async () => {
    wh = await mkdtemp(path.join(process.env.TEST_TMP ?? tmpdir(), 'scoped-io-scope-'));
    io = new LocalFileIO({ root: wh });
  });
  after(async () => {
    await rm(wh, { recursive: true, force: true });
  });

  test('data-file.external-paths roots are owned (as file: URIs too); their siblings are not', async () => {
    const scoped = new TableScopedFileIO(io, `${wh}/db.db/t`, { externalPaths: [`file://${wh}/ext/t`, `${wh}/ext2`] });
    await scoped.writeFile(`${wh}/ext/t/dt=a/bucket-0/data-1.parquet`, 'ext');
    await scoped.writeFile(`${wh}/ext2/dt=a/bucket-0/data-2.parquet`, 'ext2');
    assert.equal(await scoped.delete(`file://${wh}/ext/t/dt=a/bucket-0/data-1.parquet`), true);
    assert.equal(await scoped.delete(`${wh}/ext2/dt=a/bucket-0/data-2.parquet`), true);
    await io.writeFile(`${wh}/ext/t2/data-3.parquet`, 'sibling of an external root');
    await assert.rejects(scoped.delete(`${wh}/ext/t2/data-3.parquet`), (e: unknown) => isUnsafePathError(e) && /<outside the table>\/data-3\.parquet/.test((e as Error).message));
    assert.equal((await io.readFile(`${wh}/ext/t2/data-3.parquet`)).toString(), 'sibling of an external root');
    await assert.rejects(scoped.deleteDirectory(`${wh}/ext2`), isUnsafePathError, 'an external root itself is not removed');
    // Without the option the external root is as foreign as any other directory.
    await io.writeFile(`${wh}/ext/t/f`, 'x');
    await assert.rejects(new TableScopedFileIO(io, `${wh}/db.db/t`).delete(`${wh}/ext/t/f`), isUnsafePathError);
  });

  test('a directory symlink inside the table that leads outside: nothing behind it is changed or listed; the link itself can go', async () => {
    const table = `${wh}/db.db/l`;
    await io.writeFile(`${wh}/outside/dir/old-data.parquet`, 'outside');
    await mkdir(`${table}/dt=1`, { recursive: true });
    await symlink(`${wh}/outside/dir`, `${table}/dt=1/bucket-9`);
    const scoped = new TableScopedFileIO(io, table);
    assert.equal(scoped.contains(`${table}/dt=1/bucket-9/old-data.parquet`), true, 'lexically inside');
    for (const [what, fn] of [
      ['delete', () => scoped.delete(`${table}/dt=1/bucket-9/old-data.parquet`)],
      ['deleteMany', () => scoped.deleteMany([`${table}/dt=1/bucket-9/old-data.parquet`])],
      ['write', () => scoped.writeFile(`${table}/dt=1/bucket-9/new.parquet`, 'x')],
      ['rename', () => scoped.rename(`${table}/dt=1/bucket-9/old-data.parquet`, `${table}/moved`)],
      ['list', async () => {
        for await (const _ of scoped.list(`${table}/dt=1/bucket-9`)) void _;
      }],
      ['deleteDirectory below', () => scoped.deleteDirectory(`${table}/dt=1/bucket-9/sub`)],
    ] as const) {
      await assert.rejects(fn(), (e: unknown) => {
        assert.ok(isUnsafePathError(e), `${what}: ${String(e)}`);
        assert.ok(!(e as Error).message.includes(wh), `${what}: ${(e as Error).message}`);
        assert.match((e as Error).message, /'dt=1\/bucket-9/, `${what} names the table-relative path`);
        return true;
      });
    }
    assert.equal(await readFile(`${wh}/outside/dir/old-data.parquet`, 'utf8'), 'outside');
    assert.equal(existsSync(`${table}/dt=1/bucket-9/new.parquet`), false);
    // Unlinking the link is a change inside the table; the directory it pointed at stays.
    assert.equal(await scoped.delete(`${table}/dt=1/bucket-9`), true);
    assert.equal(await readFile(`${wh}/outside/dir/old-data.parquet`, 'utf8'), 'outside');
  });

  test('a table reached through a linked warehouse directory works as usual', async () => {
    await mkdir(`${wh}/real/db.db/t`, { recursive: true });
    await symlink(`${wh}/real`, `${wh}/linked`);
    const scoped = new TableScopedFileIO(io, `${wh}/linked/db.db/t`);
    await scoped.writeFile(`${wh}/linked/db.db/t/snapshot/snapshot-1`, '{}');
    await scoped.mkdirs(`${wh}/linked/db.db/t`);
    assert.equal(await scoped.delete(`${wh}/linked/db.db/t/snapshot/snapshot-1`), true);
  });

  test('the read-only view of a warehouse refuses every change and listing, reads everything', async () => {
    await io.writeFile(`${wh}/db.db/r/f`, 'r');
    const ro = new TableScopedFileIO(io, null);
    assert.equal((await ro.readFile(`${wh}/db.db/r/f`)).toString(), 'r');
    await assert.rejects(ro.writeFile(`${wh}/db.db/r/g`, 'x'), isUnsafePathError);
    await assert.rejects(ro.delete(`${wh}/db.db/r/f`), isUnsafePathError);
    await assert.rejects(ro.mkdirs(`${wh}/db.db/x`), isUnsafePathError);
    assert.equal(ro.contains(`${wh}/db.db/r/f`), false);
  });
});
