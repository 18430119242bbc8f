/**
 * compact on S3 (moto): a primary-key table written by Paimon Java 1.4.2 (paimon-s3; the Java S3
 * peer works on 1.4.2) to s3://, compacted by our library through the S3 FileIO only, then read
 * back by Paimon Java. The FileIO is instrumented to show how data files move: every Parquet file
 * is read with openRead (a stream of the object, copied to a local temporary file chunk by chunk)
 * and written with writeStream (chunks, uploaded in parts of bounded size), never as one buffer
 * (readFile / writeFile), and the temporary local copies are gone afterwards.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { java, tempWarehouse, canonicalJson, s3CatalogOptions, type Json, type JsonObj } from './peers.js';
import { startS3Peer, s3FileIO, createBucket, type S3Peer } from '../unit/paimon/fs/s3-peer.js';
import { compactTable } from '../../src/paimon/compact/compact-table.js';
import { closeDataEngine, dataTempDir } from '../../src/paimon/data/duckdb-engine.js';
import type { FileIO } from '../../src/paimon/fs/file-io.js';

let s3: S3Peer;
before(async () => {
  s3 = await startS3Peer();
});
after(async () => {
  await closeDataEngine();
  await s3?.stop();
});

const canon = (rows: JsonObj[]): string[] => rows.map((r) => JSON.stringify(r, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))).sort();

interface IoCall {
  op: string;
  path: string;
  /** readRange length; for writeStream the largest chunk handed to the FileIO. */
  bytes?: number;
}

/** A FileIO that records which operations touch which paths (and the chunk sizes of writeStream). */
function recording(io: FileIO, calls: IoCall[]): FileIO {
  return new Proxy(io, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver) as unknown;
      if (typeof v !== 'function') return v;
      const name = String(prop);
      return (...args: unknown[]) => {
        const path = typeof args[0] === 'string' ? args[0] : '';
        if (name === 'writeStream') {
          const call: IoCall = { op: name, path, bytes: 0 };
          calls.push(call);
          const source = args[1] as AsyncIterable<Buffer> | Readable;
          const counted = (async function* () {
            for await (const chunk of source) {
              const b = chunk as Buffer;
              call.bytes = Math.max(call.bytes ?? 0, b.length);
              yield b;
            }
          })();
          return (v as (p: string, s: AsyncIterable<Buffer>) => Promise<number>).call(target, path, counted);
        }
        calls.push({ op: name, path, ...(name === 'readRange' ? { bytes: Number(args[2]) } : {}) });
        return (v as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

test('a Paimon Java 1.4 table on S3 compacted through the S3 FileIO (data files streamed) reads the same in Java', async () => {
  const bucket = `compact-s3-${Date.now().toString(36)}`;
  await createBucket(s3, bucket);
  const wh = `s3://${bucket}/wh`;
  const peer = java('1.4').withCatalogOptions(s3CatalogOptions(s3));
  await peer.createTable(wh, 'db', 't', {
    fields: [
      { name: 'dt', type: 'STRING NOT NULL' },
      { name: 'id', type: 'INT NOT NULL' },
      { name: 'v', type: 'STRING' },
      { name: 'n', type: 'BIGINT' },
    ],
    primaryKeys: ['dt', 'id'],
    partitionKeys: ['dt'],
    options: { bucket: '2', 'write-only': 'true' },
  });
  const dir = tempWarehouse('compact-s3-rows');
  const steps: string[][] = [];
  for (let c = 0; c < 4; c++) {
    const rows: JsonObj[] = [];
    for (let k = 0; k < 300; k++) {
      const id = (c * 97 + k) % 500;
      rows.push({ dt: id % 2 === 0 ? '2024-01-01' : '2024-01-02', id, v: `v${c}-${k}-${'x'.repeat(k % 50)}`, n: c * 1000 + k, ...(c === 3 && k % 11 === 0 ? { _rowKind: '-D' } : {}) });
    }
    const f = join(dir, `c${c}.jsonl`);
    writeFileSync(f, rows.map((r) => canonicalJson(r)).join('\n') + '\n');
    steps.push(['write', wh, 'db', 't', f]);
  }
  for (const r of await peer.batch(steps)) assert.equal(r.ok, true, r.error);
  const beforeRows = canon(await peer.read(wh, 'db', 't'));
  assert.ok(beforeRows.length > 300);

  const calls: IoCall[] = [];
  const io = recording(s3FileIO(s3), calls);
  const r = await compactTable({ fileIO: io, tablePath: `${wh}/db.db/t`, table: 'db.t', strategy: 'full', memoryBudgetBytes: 64 << 20, concurrency: 2 });
  assert.notEqual(r.committedSnapshotId, null, `nothing committed: ${String(r.skippedReason)}`);
  assert.equal(r.buckets, 4);
  assert.equal(r.filesBefore, 16, 'four level-0 files in each of 2 partitions x 2 buckets');

  // Java reads the same rows, and every file of every snapshot is there
  assert.deepEqual(canon(await peer.read(wh, 'db', 't')), beforeRows, 'Paimon Java 1.4 reads the same rows from S3');
  const chk = await peer.check(wh, 'db', 't');
  assert.equal(chk.ok, true);
  const dump = (await peer.dump(wh, 'db', 't')) as unknown as JsonObj;
  const snaps = dump.snapshots as JsonObj[];
  assert.equal(snaps[snaps.length - 1].commitKind, 'COMPACT');
  const lists = dump.manifestLists as Record<string, { manifests: Array<{ fileName: string }> }>;
  const manifests = dump.manifests as Record<string, JsonObj[]>;
  const delta = lists[String(snaps[snaps.length - 1].deltaManifestList)].manifests.flatMap((m) => manifests[m.fileName] ?? []);
  const added = delta.filter((e) => e.kind === 'ADD').map((e) => e.file as JsonObj);
  assert.equal(added.length, 4);
  for (const f of added) assert.equal(Number(f.level), 5);
  assert.equal(added.reduce((s, f) => s + Number(f.rowCount as Json), 0), beforeRows.length);

  // how the data files moved
  const parquet = (c: IoCall): boolean => c.path.endsWith('.parquet');
  assert.ok(calls.every((c) => c.path === '' || c.path.startsWith('s3://')), 'only s3:// paths');
  const opened = new Set(calls.filter((c) => parquet(c) && c.op === 'openRead').map((c) => c.path));
  assert.equal(opened.size, 16, 'every compacted file read as a stream (openRead)');
  assert.deepEqual(calls.filter((c) => parquet(c) && (c.op === 'readFile' || c.op === 'writeFile' || c.op === 'tryCreateAtomic')), [], 'no data file read or written as one buffer');
  for (const c of calls.filter((x) => parquet(x) && x.op === 'readRange')) assert.ok((c.bytes ?? 0) <= 64 * 1024, `readRange of ${c.bytes} bytes on ${c.path}`);
  const streamed = calls.filter((c) => parquet(c) && c.op === 'writeStream');
  assert.equal(streamed.length, 4, 'every new data file uploaded with writeStream');
  for (const c of streamed) assert.ok((c.bytes ?? 0) <= 1 << 20, `chunks of at most 1 MiB handed to the upload (saw ${c.bytes})`);
  const tmp = dataTempDir();
  assert.deepEqual(existsSync(tmp) ? readdirSync(tmp).filter((f) => f.endsWith('.parquet')) : [], [], 'local temporary copies removed');
});
