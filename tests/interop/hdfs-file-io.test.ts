/**
 * WebHdfsFileIO against a real single-node HDFS (Hadoop's MiniDFSCluster, tests/setup/hdfs.sh):
 * the FileIO contract on HDFS, HDFS's own traps (a plain rename moves a file *into* an existing
 * directory; the name node hands uploads to a data node), create-if-absent races between
 * processes, and the catalog properties that pick the name node and the user.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FileIO, FileStatus } from '../../src/paimon/fs/file-io.js';
import { createFileIO } from '../../src/paimon/fs/file-io-factory.js';
import { TableScopedFileIO, isUnsafePathError } from '../../src/paimon/fs/table-scoped-file-io.js';
import { WebHdfsFileIO } from '../../src/paimon/fs/webhdfs-file-io.js';
import { SnapshotManager } from '../../src/paimon/table/snapshot-manager.js';
import { isPaimonError } from '../../src/paimon/errors.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, '../..');

function peer(): { uri: string; http: string; user: string } {
  const uri = process.env.HDFS_URI;
  const http = process.env.HDFS_HTTP_ADDRESS;
  if (!uri || !http) throw new Error('HDFS peer not started: run through tests/run.sh (tests/setup/hdfs.sh exports HDFS_URI, HDFS_HTTP_ADDRESS)');
  return { uri, http, user: process.env.HDFS_USER ?? 'root' };
}

async function sorted(it: AsyncIterable<FileStatus>): Promise<FileStatus[]> {
  const out: FileStatus[] = [];
  for await (const s of it) out.push(s);
  return out.sort((a, b) => (a.path < b.path ? -1 : 1));
}

const base = (p: string): string => p.slice(p.lastIndexOf('/') + 1);

/** The name node's own view of a path (owner, type), bypassing our FileIO. */
async function nameNodeStatus(http: string, hdfsPath: string): Promise<{ owner: string; type: string } | null> {
  const r = await fetch(`http://${http}/webhdfs/v1${hdfsPath}?op=GETFILESTATUS&user.name=${peer().user}`);
  if (r.status === 404) return null;
  return ((await r.json()) as { FileStatus: { owner: string; type: string } }).FileStatus;
}

let io: FileIO;
let props: Record<string, string>;
let root: string;

before(async () => {
  const p = peer();
  props = { 'dfs.namenode.http-address': p.http, 'hadoop.username': p.user };
  root = `${p.uri}/unit-${process.pid}`;
  io = createFileIO(root, props);
  assert.ok(io instanceof WebHdfsFileIO, 'hdfs:// picks the WebHDFS FileIO');
});

after(async () => {
  await io?.deleteDirectory(root).catch(() => undefined);
  await io?.close();
});

describe('WebHdfsFileIO: the FileIO contract on HDFS', () => {
  test('a written file reads back, its parents exist as directories, and a second write replaces it', async () => {
    const p = `${root}/rw/x/y/file.txt`;
    await io.writeFile(p, 'first version');
    await io.writeFile(p, Buffer.from('v2'));
    assert.equal((await io.readFile(p)).toString(), 'v2');
    const st = await io.getStatus(p);
    assert.deepEqual([st?.path, st?.size, st?.isDir], [p, 2, false]);
    assert.ok(Math.abs((st?.modificationTime ?? 0) - Date.now()) < 120_000);
    assert.equal((await io.getStatus(`${root}/rw/x`))?.isDir, true);
    assert.equal(await io.exists(p), true);
    // Only the target is left in the directory: the temp files of both writes were renamed away.
    assert.deepEqual((await sorted(io.list(`${root}/rw/x/y`))).map((s) => base(s.path)), ['file.txt']);
  });

  test('an absent path: FILE_NOT_FOUND to read, null status, empty listing, delete says false', async () => {
    const p = `${root}/absent/f`;
    await assert.rejects(io.readFile(p), (e) => isPaimonError(e, 'FILE_NOT_FOUND'));
    await assert.rejects(io.openRead(p), (e) => isPaimonError(e, 'FILE_NOT_FOUND'));
    assert.equal(await io.getStatus(p), null);
    assert.equal(await io.exists(p), false);
    assert.deepEqual(await sorted(io.list(`${root}/absent`)), []);
    assert.deepEqual(await sorted(io.listRecursive(`${root}/absent`)), []);
    assert.equal(await io.delete(p), false);
  });

  test('readRange answers the exact bytes (OPEN offset/length) and CORRUPT_METADATA past the end', async () => {
    const p = `${root}/range/data.bin`;
    const bytes = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 31) & 0xff));
    await io.writeFile(p, bytes);
    assert.deepEqual(await io.readRange(p, 100, 57), bytes.subarray(100, 157));
    assert.deepEqual(await io.readRange(p, 4090, 6), bytes.subarray(4090));
    assert.equal((await io.readRange(p, 5, 0)).length, 0);
    await assert.rejects(io.readRange(p, 4090, 7), (e) => isPaimonError(e, 'CORRUPT_METADATA'));
    await assert.rejects(io.readRange(p, 5000, 1), (e) => isPaimonError(e, 'CORRUPT_METADATA'));
  });

  test('tryCreateAtomic creates once; later calls answer false and leave the first bytes and no temp file', async () => {
    const p = `${root}/commit/snapshot/snapshot-1`;
    assert.equal(await io.tryCreateAtomic(p, '{"id":1,"by":"a"}'), true);
    assert.equal(await io.tryCreateAtomic(p, '{"id":1,"by":"b"}'), false);
    assert.equal(await io.tryCreateAtomic(p, Buffer.from('c')), false);
    assert.equal((await io.readFile(p)).toString(), '{"id":1,"by":"a"}');
    assert.deepEqual((await sorted(io.list(`${root}/commit/snapshot`))).map((s) => base(s.path)), ['snapshot-1']);
  });

  test('writeStream sends 12 MiB in chunks that openRead returns unchanged; the target appears only at the end', async () => {
    const p = `${root}/stream/part-0.parquet`;
    const seenMidway: boolean[] = [];
    async function* chunks(): AsyncIterable<Buffer> {
      for (let i = 0; i < 12; i++) {
        const c = Buffer.alloc(1024 * 1024, i);
        c.writeUInt32BE(i * 1000003, 8);
        if (i === 6) seenMidway.push(await io.exists(p));
        yield c;
      }
    }
    assert.equal(await io.writeStream(p, chunks()), 12 * 1024 * 1024);
    assert.deepEqual(seenMidway, [false], 'a reader never sees the half-written file');
    const back: Buffer[] = [];
    for await (const c of await io.openRead(p)) back.push(c as Buffer);
    const all = Buffer.concat(back);
    assert.equal(all.length, 12 * 1024 * 1024);
    for (let i = 0; i < 12; i++) {
      assert.equal(all[i * 1024 * 1024], i);
      assert.equal(all.readUInt32BE(i * 1024 * 1024 + 8), i * 1000003);
    }
    assert.equal((await io.getStatus(p))?.size, all.length);
  });

  test('list, listBatches and listRecursive agree on names, sizes and directories', async () => {
    const d = `${root}/ls`;
    await io.writeFile(`${d}/a`, '1');
    await io.writeFile(`${d}/bb`, '22');
    await io.writeFile(`${d}/dt=2026-12-02/part 1.orc`, '333');
    await io.mkdirs(`${d}/empty`);
    const direct = await sorted(io.list(d));
    assert.deepEqual(
      direct.map((s) => [s.path, s.isDir, s.isDir ? 0 : s.size]),
      [
        [`${d}/a`, false, 1],
        [`${d}/bb`, false, 2],
        [`${d}/dt=2026-12-02`, true, 0],
        [`${d}/empty`, true, 0],
      ],
    );
    const names: string[] = [];
    for await (const b of io.listBatches!(d)) names.push(...b.names.map((n, i) => `${n}:${b.isDir[i]}:${b.isDir[i] ? 0 : b.sizes[i]}`));
    assert.deepEqual(names.sort(), ['a:0:1', 'bb:0:2', 'dt=2026-12-02:1:0', 'empty:1:0']);
    assert.deepEqual((await sorted(io.listRecursive(d))).map((s) => s.path.slice(d.length + 1)), ['a', 'bb', 'dt=2026-12-02/part 1.orc']);
    // A file is not a directory: listing it yields nothing rather than the file itself.
    assert.deepEqual(await sorted(io.list(`${d}/a`)), []);
  });

  test('rename never replaces a file, never moves into an existing directory, and creates missing parents', async () => {
    const d = `${root}/mv`;
    await io.writeFile(`${d}/src`, 'S');
    await io.writeFile(`${d}/taken`, 'T');
    await io.mkdirs(`${d}/dir-target`);
    assert.equal(await io.rename(`${d}/src`, `${d}/taken`), false);
    assert.equal((await io.readFile(`${d}/taken`)).toString(), 'T');
    // Hadoop's plain rename would move src to dir-target/src here; the contract says "target exists".
    assert.equal(await io.rename(`${d}/src`, `${d}/dir-target`), false);
    assert.deepEqual(await sorted(io.list(`${d}/dir-target`)), []);
    assert.equal(await io.rename(`${d}/src`, `${d}/new/parent/dst`), true);
    assert.equal(await io.exists(`${d}/src`), false);
    assert.equal((await io.readFile(`${d}/new/parent/dst`)).toString(), 'S');
    await io.writeFile(`${d}/tree/k/v`, 'V');
    assert.equal(await io.rename(`${d}/tree`, `${d}/tree2`), true);
    assert.equal((await io.readFile(`${d}/tree2/k/v`)).toString(), 'V');
    assert.equal(await io.rename(`${d}/tree2`, `${d}/dir-target`), false, 'an existing (empty) directory is not replaced');
    await assert.rejects(io.rename(`${d}/gone`, `${d}/x`), (e) => isPaimonError(e, 'FILE_NOT_FOUND'));
  });

  test('copyFile keeps an existing target without overwrite and replaces it with', async () => {
    const d = `${root}/cp`;
    await io.writeFile(`${d}/from`, 'FROM');
    await io.writeFile(`${d}/to`, 'TO');
    assert.equal(await io.copyFile(`${d}/from`, `${d}/to`, false), false);
    assert.equal((await io.readFile(`${d}/to`)).toString(), 'TO');
    assert.equal(await io.copyFile(`${d}/from`, `${d}/to`, true), true);
    assert.equal((await io.readFile(`${d}/to`)).toString(), 'FROM');
    assert.equal(await io.copyFile(`${d}/from`, `${d}/fresh/copy`, false), true);
    assert.equal((await io.readFile(`${d}/fresh/copy`)).toString(), 'FROM');
    assert.deepEqual((await sorted(io.list(d))).map((s) => base(s.path)), ['fresh', 'from', 'to']);
  });

  test('260 files: listing pages past dfs.ls.limit (100 on the peer) and deleteMany counts what it removed', async () => {
    const d = `${root}/many`;
    const files = Array.from({ length: 260 }, (_, i) => `${d}/f-${String(i).padStart(4, '0')}`);
    await io.mkdirs(d);
    for (let i = 0; i < files.length; i += 65) await Promise.all(files.slice(i, i + 65).map((f) => io.writeFile(f, '')));
    let batches = 0;
    const listed: string[] = [];
    for await (const b of io.listBatches!(d)) {
      batches++;
      listed.push(...b.names);
    }
    assert.deepEqual(listed, files.map(base), 'every entry once, in the name node order');
    assert.equal(batches, 3, 'LISTSTATUS_BATCH answered 100 + 100 + 60');
    assert.equal((await sorted(io.list(d))).length, 260);
    assert.equal(await io.deleteMany([...files, `${d}/never-existed`]), 260);
    assert.deepEqual(await sorted(io.list(d)), []);
  });

  test('deleteDirectory removes a tree; delete refuses a non-empty directory; mkdirs makes an empty one', async () => {
    const d = `${root}/del`;
    await io.writeFile(`${d}/a/b`, '1');
    await io.writeFile(`${d}/c`, '2');
    await assert.rejects(io.delete(d), (e) => isPaimonError(e, 'STORAGE_ERROR'));
    assert.equal(await io.exists(`${d}/a/b`), true);
    await io.deleteDirectory(d);
    assert.equal(await io.exists(d), false);
    await io.mkdirs(`${root}/made.db`);
    assert.equal((await io.getStatus(`${root}/made.db`))?.isDir, true);
    assert.ok((await sorted(io.list(root))).some((s) => s.path === `${root}/made.db` && s.isDir));
  });
});

describe('WebHdfsFileIO: create-if-absent under concurrency', () => {
  test('six rounds of eight concurrent tryCreateAtomic calls: exactly one wins each, and its bytes are stored', async () => {
    for (let round = 0; round < 6; round++) {
      const p = `${root}/race-inproc/snapshot-${round}`;
      const results = await Promise.all(Array.from({ length: 8 }, (_, i) => io.tryCreateAtomic(p, `writer-${i}`)));
      const winners = results.flatMap((w, i) => (w ? [i] : []));
      assert.equal(winners.length, 1, `round ${round}: ${JSON.stringify(results)}`);
      assert.equal((await io.readFile(p)).toString(), `writer-${winners[0]}`);
    }
    assert.equal((await sorted(io.list(`${root}/race-inproc`))).length, 6, 'no temp files are left');
  });

  test('two committer processes racing for the same snapshot ids: one wins each round (SnapshotManager)', async () => {
    const table = `${root}/race/db.db/t`;
    const worker = path.join(REPO, 'tests/unit/paimon/fs/race-worker.ts');
    const procs = ['w0', 'w1'].map((commitUser) =>
      spawn(process.execPath, ['--import', 'tsx', worker, JSON.stringify({ table, commitUser, properties: props })], { cwd: REPO, stdio: ['pipe', 'pipe', 'inherit'] }),
    );
    try {
      const lines = procs.map((p) => createInterface({ input: p.stdout! })[Symbol.asyncIterator]());
      const next = async (i: number): Promise<string> => {
        const r = await lines[i].next();
        if (r.done) throw new Error(`racer w${i} exited`);
        return r.value;
      };
      for (let i = 0; i < procs.length; i++) assert.equal(await next(i), 'ready');
      const sm = new SnapshotManager(io, table);
      for (let id = 1; id <= 4; id++) {
        const startAt = Date.now() + 300;
        for (const p of procs) p.stdin!.write(JSON.stringify({ snapshotId: id, startAt }) + '\n');
        const won = await Promise.all(
          procs.map(async (_, i) => {
            const msg = JSON.parse(await next(i)) as { won?: boolean; error?: string };
            assert.equal(msg.error, undefined, `racer w${i}: ${msg.error}`);
            return msg.won === true;
          }),
        );
        assert.equal(won.filter(Boolean).length, 1, `round ${id}: ${JSON.stringify(won)}`);
        assert.equal((await sm.snapshot(id)).commitUser, `w${won.indexOf(true)}`);
      }
      assert.equal(await sm.latestSnapshotId(), 4);
    } finally {
      for (const p of procs) p.stdin!.end();
      await Promise.all(procs.map((p) => (p.exitCode !== null ? undefined : new Promise((r) => p.once('exit', r)))));
    }
  });
});

describe('WebHdfsFileIO: addresses, users and the table scope', () => {
  test('hdfs:/// takes the name node from fs.defaultFS; webhdfs:// names the HTTP address itself', async () => {
    const p = peer();
    const rel = `/unit-${process.pid}/spellings/f`;
    const viaDefault = createFileIO('hdfs:///wh', { 'hadoop.fs.defaultFS': p.uri, 'hadoop.dfs.namenode.http-address': p.http, 'hadoop.username': p.user });
    await viaDefault.writeFile(`hdfs://${rel}`, 'default-fs');
    const viaWeb = createFileIO(`webhdfs://${p.http}/wh`, { 'hadoop.username': p.user });
    assert.ok(viaWeb instanceof WebHdfsFileIO);
    assert.equal((await viaWeb.readFile(`webhdfs://${p.http}${rel}`)).toString(), 'default-fs');
    assert.equal((await io.readFile(`${p.uri}${rel}`)).toString(), 'default-fs');
    await assert.rejects(createFileIO('hdfs:///wh', {}).readFile('hdfs:///wh/x'), (e) => isPaimonError(e, 'INVALID_ARGUMENT') && /fs\.defaultFS/.test((e as Error).message));
  });

  test('hadoop.username is the user HDFS acts for: its files are owned by it, and it is refused where it may not write', async () => {
    const p = peer();
    const dir = `/unit-${process.pid}/owners`;
    await io.mkdirs(`${p.uri}${dir}`);
    assert.equal((await nameNodeStatus(p.http, dir))?.owner, p.user);
    const stranger = createFileIO(root, { ...props, 'hadoop.username': 'paimon-stranger' });
    await assert.rejects(stranger.writeFile(`${p.uri}${dir}/x`, 'no'), (e) => isPaimonError(e, 'STORAGE_ERROR') && /permission denied for HDFS user paimon-stranger/.test((e as Error).message));
    assert.equal(await nameNodeStatus(p.http, `${dir}/x`), null);
    assert.equal((await stranger.readFile(`${p.uri}/unit-${process.pid}/spellings/f`)).toString(), 'default-fs', 'reads need no ownership');
  });

  test('an unreachable name node is a STORAGE_ERROR that names the path and the property, not the URL', async () => {
    const dead = createFileIO('hdfs://127.0.0.1:1/wh', { 'dfs.namenode.http-address': '127.0.0.1:1', 'hadoop.username': 'someone' });
    await assert.rejects(dead.readFile('hdfs://127.0.0.1:1/wh/f'), (e: unknown) => {
      assert.ok(isPaimonError(e, 'STORAGE_ERROR'));
      assert.match((e as Error).message, /hdfs:\/\/127\.0\.0\.1:1\/wh\/f.*dfs\.namenode\.http-address/);
      assert.ok(!(e as Error).message.includes('user.name'));
      return true;
    });
  });

  test('through TableScopedFileIO, changes inside the table pass and changes beside it are refused', async () => {
    const table = `${root}/scoped/db.db/t`;
    const scoped = new TableScopedFileIO(io, table);
    assert.equal(await scoped.tryCreateAtomic(`${table}/snapshot/snapshot-1`, 's1'), true);
    assert.equal(await scoped.tryCreateAtomic(`${table}/snapshot/snapshot-1`, 's1-again'), false);
    await scoped.writeFile(`${table}/bucket-0/data-0.orc`, 'rows');
    assert.deepEqual((await sorted(scoped.listRecursive(table))).map((s) => s.path.slice(table.length + 1)), ['bucket-0/data-0.orc', 'snapshot/snapshot-1']);
    await assert.rejects(scoped.writeFile(`${root}/scoped/db.db/t2/x`, 'no'), (e) => isUnsafePathError(e));
    await assert.rejects(scoped.deleteDirectory(`${root}/scoped/db.db`), (e) => isUnsafePathError(e));
    assert.equal(await io.exists(`${root}/scoped/db.db/t2/x`), false);
    assert.equal(await scoped.rename(`${table}/bucket-0/data-0.orc`, `${table}/snapshot/snapshot-1`), false);
  });
});
