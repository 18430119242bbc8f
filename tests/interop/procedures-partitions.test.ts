/**
 * expire_partitions against Paimon Java's own PartitionExpire (PartitionTool.java runs what
 * ExpirePartitionsProcedure runs), per Paimon version, on copies of Java-written partitioned
 * tables: date partitions as 'yyyy-MM-dd', 'yyyyMMdd' (a primary-key table with two buckets, its
 * options in the table), 'dt' + 'hour' through a timestamp pattern (batches of one), an INT
 * 'yyyyMMdd' partition through the options argument, a DATE partition (never values-time
 * expired), a NULL partition and values that do not parse; values-time and update-time. Java on
 * copy a, ours on copy b: the same result rows, the same OVERWRITE snapshots, the same live files;
 * Java and pypaimon read the same rows; Java's check passes on ours and Java keeps writing.
 * Then: a concurrent Java writer loses no commit, a Java write into a partition being dropped
 * makes ours CONCURRENT_MODIFICATION with nothing committed, and dry_run changes nothing.
 *
 * mark_partition_done against PartitionMarkDoneAction (PartitionTool mark-done): the same _SUCCESS
 * files, which each side reads back from the other; the same http-report POSTs to a small HTTP
 * server on loopback; done-partition refused (Java fails on a filesystem catalog too).
 */
import { describe, test, before, after } from 'node:test';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LocalFileIO } from '../../src/paimon/fs/local-file-io.js';
import type { FileIO } from '../../src/paimon/fs/file-io.js';
import { CatalogSet, FileSystemProcedureCatalog } from '../../src/catalogs.js';
import { ProcedureExecutor } from '../../procedures/framework/executor.js';
import { ProcedureRegistry } from '../../procedures/framework/registry.js';
import { configSchema } from '../../src/config-schema.js';
import { partitionProcedures } from '../../procedures/partitions/index.js';
import { callNamed, executorFor, liveDataFiles } from './procedures-support.js';
import { canonicalSort, copyWarehouse, java, parseJson, pypaimon, tempWarehouse, type PaimonJavaVersion, type Row, type TableSpec, pypaimons } from './peers.js';

const DB = 'db';

interface TableDef {
  name: string;
  spec: TableSpec;
  /** Each inner array is one Java commit. */
  commits: Row[][];
}

const TABLES: TableDef[] = [
  {
    name: 't_dash',
    spec: { fields: [{ name: 'dt', type: 'STRING' }, { name: 'id', type: 'INT' }, { name: 'v', type: 'STRING' }], partitionKeys: ['dt'], options: { bucket: '-1' } },
    commits: [
      ['2020-01-01', '2020-01-02', '2020-01-03', '2999-01-01', null, 'not-a-date'].map((dt, i) => ({ dt, id: i, v: `a${i}` })),
      ['2020-01-01', '2020-01-03', null].map((dt, i) => ({ dt, id: 10 + i, v: `b${i}` })),
    ],
  },
  {
    name: 't_compact',
    spec: {
      fields: [{ name: 'dt', type: 'STRING NOT NULL' }, { name: 'id', type: 'INT NOT NULL' }, { name: 'v', type: 'STRING' }],
      primaryKeys: ['dt', 'id'],
      partitionKeys: ['dt'],
      options: { bucket: '2', 'partition.expiration-time': '1 d', 'partition.timestamp-formatter': 'yyyyMMdd' },
    },
    commits: [
      ['20200101', '20200102', '29990101', 'bad'].flatMap((dt, i) => [0, 1, 2, 3].map((k) => ({ dt, id: k, v: `a${i}${k}` }))),
      ['20200101', '29990101'].map((dt, i) => ({ dt, id: 1, v: `b${i}` })),
    ],
  },
  {
    name: 't_hour',
    spec: { fields: [{ name: 'dt', type: 'STRING' }, { name: 'hour', type: 'STRING' }, { name: 'v', type: 'INT' }], partitionKeys: ['dt', 'hour'], options: { bucket: '-1' } },
    commits: [
      [
        ['2020-01-01', '01'],
        ['2020-01-01', '13'],
        ['2999-01-01', '00'],
        ['2020-01-02', null],
        ['2020-01-03', 'xx'],
      ].map(([dt, hour], i) => ({ dt, hour, v: i })),
    ],
  },
  {
    name: 't_int',
    spec: { fields: [{ name: 'p', type: 'INT' }, { name: 'v', type: 'STRING' }], partitionKeys: ['p'], options: { bucket: '-1' } },
    commits: [[20200101, 20200102, 29990101].map((p, i) => ({ p, v: `x${i}` }))],
  },
  {
    name: 't_date',
    spec: { fields: [{ name: 'd', type: 'DATE' }, { name: 'v', type: 'STRING' }], partitionKeys: ['d'], options: { bucket: '-1' } },
    commits: [['2020-01-01', '2020-01-02'].map((d, i) => ({ d, v: `d${i}` }))],
  },
];

interface Scenario {
  name: string;
  table: string;
  /** expiration, formatter, pattern, strategy, maxExpires, options ('-' when absent), as PartitionTool takes them. */
  java: [string, string, string, string, string, string];
  ours: Record<string, string | number>;
  /** Java's expected result (the scenarios must expire what they say). */
  expired: string[];
}

const SCENARIOS: Scenario[] = [
  {
    name: "values-time, default formatter: 'yyyy-MM-dd', a NULL and an unparseable partition skipped",
    table: 't_dash',
    java: ['1 d', '-', '-', '-', '-', '-'],
    ours: { expiration_time: '1 d' },
    expired: ['dt=2020-01-01', 'dt=2020-01-02', 'dt=2020-01-03'],
  },
  {
    name: "values-time, 'yyyyMMdd' from the table's own options, a primary-key table with two buckets",
    table: 't_compact',
    java: ['-', '-', '-', '-', '-', '-'],
    ours: {},
    expired: ['dt=20200101', 'dt=20200102'],
  },
  {
    name: "values-time, '$dt $hour:00:00' pattern, batches of one partition (two commits)",
    table: 't_hour',
    java: ['1 d', 'yyyy-MM-dd HH:mm:ss', '$dt $hour:00:00', 'values-time', '-', 'partition.expiration-batch-size=1'],
    ours: { expiration_time: '1 d', timestamp_formatter: 'yyyy-MM-dd HH:mm:ss', timestamp_pattern: '$dt $hour:00:00', expire_strategy: 'values-time', options: 'partition.expiration-batch-size=1' },
    expired: ['dt=2020-01-01, hour=01', 'dt=2020-01-01, hour=13'],
  },
  {
    name: 'values-time, INT partition through the options argument, max_expires 1',
    table: 't_int',
    java: ['1 d', '-', '-', '-', '1', 'partition.timestamp-formatter=yyyyMMdd'],
    ours: { expiration_time: '1 d', max_expires: 1, options: 'partition.timestamp-formatter=yyyyMMdd' },
    expired: ['p=20200101'],
  },
  {
    name: 'values-time on a DATE partition: nothing (the day number does not parse)',
    table: 't_date',
    java: ['1 d', '-', '-', '-', '-', '-'],
    ours: { expiration_time: '1 d' },
    expired: [],
  },
  {
    name: 'update-time, max_expires 5: the NULL partition too, in sorted order',
    table: 't_dash',
    java: ['1 ms', '-', '-', 'update-time', '5', '-'],
    ours: { expiration_time: '1 ms', expire_strategy: 'update-time', max_expires: 5 },
    expired: ['dt=2020-01-01', 'dt=2020-01-02', 'dt=2020-01-03', 'dt=2999-01-01', 'dt=__DEFAULT_PARTITION__'],
  },
];

function snapshotsOf(wh: string, table: string): { id: number; commitKind: string; totalRecordCount: number }[] {
  const dir = join(wh, `${DB}.db`, table, 'snapshot');
  return readdirSync(dir)
    .filter((f) => f.startsWith('snapshot-'))
    .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as { id: number; commitKind: string; totalRecordCount: number })
    .sort((x, y) => x.id - y.id);
}

async function ourExpire(wh: string, table: string, args: Record<string, string | number | boolean>): Promise<Record<string, unknown>[]> {
  const o = await callNamed(executorFor(wh, partitionProcedures), 'expire_partitions', { table: `${DB}.${table}`, ...args });
  if (!o.ok) throw new Error(`expire_partitions failed: ${o.error.code}: ${o.error.message}`);
  return o.result.rows;
}

const VERSIONS: PaimonJavaVersion[] = ['1.4', '2.0'];

for (const v of VERSIONS) {
  describe(`expire_partitions vs Paimon ${v} PartitionExpire`, () => {
    const peer = java(v);
    let origin = '';
    before(async () => {
      origin = tempWarehouse(`partitions-${v}`);
      for (const t of TABLES) {
        await peer.createTable(origin, DB, t.name, t.spec);
        for (const rows of t.commits) await peer.write(origin, DB, t.name, rows);
      }
    });

    for (const s of SCENARIOS) {
      test(s.name, async () => {
        const a = copyWarehouse(origin, `partitions-${v}-java`);
        const b = copyWarehouse(origin, `partitions-${v}-ours`);
        const before = snapshotsOf(a, s.table).length;
        const javaOut = parseJson((await peer.runMain('PartitionTool', ['expire-partitions', a, DB, s.table, ...s.java])).stdout.trim()) as { expired: string[] };
        assert.deepEqual(javaOut.expired, s.expired, "Java's own expiry");
        const rows = await ourExpire(b, s.table, s.ours);
        assert.deepEqual(
          rows.map((r) => r.expired_partitions),
          s.expired.length === 0 ? ['No expired partitions.'] : s.expired,
          'our result rows, in Paimon order',
        );
        // The same snapshots (kinds and record counts), and the same live data files.
        const sa = snapshotsOf(a, s.table).slice(before);
        const sb = snapshotsOf(b, s.table).slice(before);
        assert.deepEqual(sb.map((x) => [x.commitKind, x.totalRecordCount]), sa.map((x) => [x.commitKind, x.totalRecordCount]));
        if (s.expired.length > 0) assert.ok(sb.length > 0 && sb.every((x) => x.commitKind === 'OVERWRITE'));
        assert.deepEqual(await liveDataFiles(b, DB, s.table), await liveDataFiles(a, DB, s.table));
        // Java and pypaimon read the same rows.
        const javaRows = await peer.read(a, DB, s.table);
        assert.deepEqual(canonicalSort(await peer.read(b, DB, s.table)), canonicalSort(javaRows));
        if (s.table === 't_date') {
          // pypaimon 2.0.0 looks for DATE partitions under 'd=2020-01-01', Java writes 'd=18262'
          // (partition.legacy-name): it cannot read Java's own copy either.
          await assert.rejects(pypaimon.read(a, DB, s.table));
          await assert.rejects(pypaimon.read(b, DB, s.table));
        } else {
          assert.deepEqual(await pypaimons.read(b, DB, s.table), canonicalSort(javaRows));
        }
        // Java accepts the table and keeps writing on it.
        assert.equal((await peer.check(b, DB, s.table)).ok, true);
        const extra = TABLES.find((t) => t.name === s.table)!.commits[0][0];
        await peer.write(b, DB, s.table, [extra]);
        assert.equal((await peer.read(b, DB, s.table)).length, javaRows.length + 1);
      });
    }

    if (v === '1.4') {
      test('dry_run lists the partitions and commits nothing', async () => {
        const b = copyWarehouse(origin, `partitions-${v}-dry`);
        const before = snapshotsOf(b, 't_dash');
        const rows = await ourExpire(b, 't_dash', { expiration_time: '1 d', dry_run: true });
        assert.deepEqual(rows.map((r) => [r.expired_partitions, r.dry_run, r.committed_snapshot_id]), [
          ['dt=2020-01-01', true, null],
          ['dt=2020-01-02', true, null],
          ['dt=2020-01-03', true, null],
        ]);
        assert.equal(rows[0].data_files, 2);
        assert.deepEqual(snapshotsOf(b, 't_dash'), before);
      });

      test('a concurrent Java writer loses no commit', async () => {
        const b = copyWarehouse(origin, `partitions-${v}-race`);
        const base = snapshotsOf(b, 't_dash').length;
        const loop = peer.writeLoop(b, DB, 't_dash', 16, 60);
        // Start once the writer is committing.
        for (let i = 0; i < 600 && snapshotsOf(b, 't_dash').length === base; i++) await new Promise((r) => setTimeout(r, 50));
        const rows = await ourExpire(b, 't_dash', { expiration_time: '1 d' });
        const { commits } = await loop;
        assert.equal(commits.length, 16);
        assert.equal(rows.length, 3);
        const snaps = snapshotsOf(b, 't_dash');
        const ours = snaps.filter((x) => x.commitKind === 'OVERWRITE');
        assert.equal(ours.length, 1);
        const ids = commits.map((c) => Number(c.snapshotId));
        assert.ok(ours[0].id > Math.min(...ids) && ours[0].id < Math.max(...ids), `our drop (snapshot ${ours[0].id}) landed among the writer's commits ${ids.join(',')}`);
        for (const c of commits) assert.ok(snaps.some((x) => x.id === Number(c.snapshotId) && x.commitKind === 'APPEND'), `writer commit ${c.snapshotId}`);
        const after = await peer.read(b, DB, 't_dash');
        const written = after.filter((r) => typeof r.dt === 'string' && r.dt.startsWith('w'));
        assert.equal(written.length, 16, "every row of the writer's commits is readable");
        assert.ok(!after.some((r) => typeof r.dt === 'string' && r.dt.startsWith('2020-')), 'the expired partitions are gone');
        assert.equal((await peer.check(b, DB, 't_dash')).ok, true);
      });

      test('a Java write into a partition being dropped makes ours CONCURRENT_MODIFICATION; nothing committed', async () => {
        const b = copyWarehouse(origin, `partitions-${v}-pin`);
        const local = new LocalFileIO();
        let injected = false;
        // The first manifest our commit writes comes after its pin check: Java commits in between, our
        // snapshot id is taken, and the retry's pin check sees the new file in dt=2020-01-01.
        const io = new Proxy(local, {
          get(target, prop, receiver) {
            if (prop === 'writeFile') {
              return async (path: string, data: Buffer) => {
                if (!injected && path.includes('/manifest/')) {
                  injected = true;
                  await peer.write(b, DB, 't_dash', [{ dt: '2020-01-01', id: 99, v: 'late' }]);
                }
                return target.writeFile(path, data);
              };
            }
            const value: unknown = Reflect.get(target, prop, receiver);
            return typeof value === 'function' ? (value as (...x: unknown[]) => unknown).bind(target) : value;
          },
        }) as FileIO;
        const executor = new ProcedureExecutor({
          registry: new ProcedureRegistry(partitionProcedures),
          catalogs: new CatalogSet([new FileSystemProcedureCatalog('paimon', b, io)]),
          limits: configSchema.parse({}).procedures,
        });
        const o = await callNamed(executor, 'expire_partitions', { table: `${DB}.t_dash`, expiration_time: '1 d' });
        assert.equal(injected, true);
        assert.equal(o.ok, false);
        if (!o.ok) assert.equal(o.error.code, 'CONCURRENT_MODIFICATION');
        assert.ok(!snapshotsOf(b, 't_dash').some((x) => x.commitKind === 'OVERWRITE'), 'no drop was committed');
        const rows = await peer.read(b, DB, 't_dash');
        assert.ok(rows.some((r) => r.v === 'late'));
        assert.equal((await peer.check(b, DB, 't_dash')).ok, true);
        assert.ok(existsSync(join(b, `${DB}.db`, 't_dash')));
      });
    }
  });
}

// ------------------------------------------------------------------------- mark_partition_done

const MARK_SPECS = 'dt=2020-01-01,hour=01;dt=2020-01-02';

async function ourMark(wh: string, table: string, partitions: string, extra: Record<string, string | boolean> = {}): Promise<Awaited<ReturnType<typeof callNamed>>> {
  return callNamed(executorFor(wh, partitionProcedures), 'mark_partition_done', { table: `${DB}.${table}`, partitions, ...extra });
}

function successFiles(wh: string, table: string): Map<string, string> {
  const root = join(wh, `${DB}.db`, table);
  const out = new Map<string, string>();
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name === '_SUCCESS') out.set(p.slice(root.length + 1), readFileSync(p, 'utf8'));
    }
  };
  walk(root);
  return out;
}

for (const v of VERSIONS) {
  describe(`mark_partition_done vs Paimon ${v} PartitionMarkDoneAction`, () => {
    const peer = java(v);
    const bodies: { contentType: string; body: Record<string, unknown> }[] = [];
    let answer = '{"result":"success"}';
    let server: Server;
    let origin = '';
    before(async () => {
      server = createServer((req, res) => {
        let data = '';
        req.on('data', (c: Buffer) => (data += c.toString('utf8')));
        req.on('end', () => {
          bodies.push({ contentType: String(req.headers['content-type'] ?? ''), body: JSON.parse(data) as Record<string, unknown> });
          res.writeHead(200, { 'Content-Type': 'application/json' });
          res.end(answer);
        });
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
      const port = (server.address() as AddressInfo).port;
      origin = tempWarehouse(`mark-${v}`);
      const fields = [{ name: 'dt', type: 'STRING' }, { name: 'hour', type: 'STRING' }, { name: 'v', type: 'INT' }];
      await peer.createTable(origin, DB, 't_success', { fields, partitionKeys: ['dt', 'hour'], options: { bucket: '-1' } });
      await peer.createTable(origin, DB, 't_http', {
        fields,
        partitionKeys: ['dt', 'hour'],
        options: { bucket: '-1', 'partition.mark-done-action': 'success-file,http-report', 'partition.mark-done-action.http.url': `http://127.0.0.1:${port}/report`, 'partition.mark-done-action.http.params': 'k=v' },
      });
      await peer.createTable(origin, DB, 't_done', { fields, partitionKeys: ['dt', 'hour'], options: { bucket: '-1', 'partition.mark-done-action': 'done-partition' } });
      for (const t of ['t_success', 't_http', 't_done']) await peer.write(origin, DB, t, [{ dt: '2020-01-01', hour: '01', v: 1 }, { dt: '2020-01-02', hour: '00', v: 2 }]);
    });
    after(() => new Promise<void>((r) => server.close(() => r())));

    test('success-file: the same _SUCCESS files as Java, creationTime kept on a second mark', async () => {
      const a = copyWarehouse(origin, `mark-${v}-java`);
      const b = copyWarehouse(origin, `mark-${v}-ours`);
      await peer.runMain('PartitionTool', ['mark-done', a, DB, 't_success', MARK_SPECS]);
      const o = await ourMark(b, 't_success', MARK_SPECS);
      assert.ok(o.ok, o.ok ? '' : o.error.message);
      if (o.ok) assert.deepEqual(o.result.rows.map((r) => [r.result, r.partition, r.actions]), [[true, 'dt=2020-01-01/hour=01/', 'success-file'], [true, 'dt=2020-01-02/', 'success-file']]);
      const ja = successFiles(a, 't_success');
      const ours = successFiles(b, 't_success');
      assert.deepEqual([...ours.keys()].sort(), [...ja.keys()].sort());
      assert.deepEqual([...ours.keys()].sort(), ['dt=2020-01-01/hour=01/_SUCCESS', 'dt=2020-01-02/_SUCCESS']);
      const shape = (s: string): string => s.replace(/\d+/g, 'N');
      for (const [k, text] of ours) assert.equal(shape(text), shape(ja.get(k)!), `${k}: the same JSON layout as Java's`);
      const first = JSON.parse(ours.get('dt=2020-01-02/_SUCCESS')!) as { creationTime: number; modificationTime: number };
      await new Promise((r) => setTimeout(r, 5));
      assert.ok((await ourMark(b, 't_success', 'dt=2020-01-02')).ok);
      const second = JSON.parse(successFiles(b, 't_success').get('dt=2020-01-02/_SUCCESS')!) as { creationTime: number; modificationTime: number };
      assert.equal(second.creationTime, first.creationTime);
      assert.ok(second.modificationTime > first.modificationTime);
      // Java reads our success file back, and keeps its creationTime when it marks again.
      await peer.runMain('PartitionTool', ['mark-done', b, DB, 't_success', 'dt=2020-01-02']);
      assert.equal((JSON.parse(successFiles(b, 't_success').get('dt=2020-01-02/_SUCCESS')!) as { creationTime: number }).creationTime, first.creationTime);
      assert.equal((await peer.check(b, DB, 't_success')).ok, true);
    });

    test('http-report: the same POSTs as Java to a local server; a non-SUCCESS answer fails the call', async () => {
      const a = copyWarehouse(origin, `mark-${v}-java-http`);
      const b = copyWarehouse(origin, `mark-${v}-ours-http`);
      bodies.length = 0;
      answer = '{"result":"success"}';
      await peer.runMain('PartitionTool', ['mark-done', a, DB, 't_http', MARK_SPECS]);
      const javaBodies = bodies.splice(0);
      const o = await ourMark(b, 't_http', MARK_SPECS);
      assert.ok(o.ok, o.ok ? '' : o.error.message);
      const ourBodies = bodies.splice(0);
      // 2.0.0 posts application/json; 1.4.2 posted the same text as text/plain (ISO-8859-1), which
      // mangles non-Latin-1 values: ours is always 2.0.0's.
      assert.ok(ourBodies.every((x) => x.contentType.toLowerCase().startsWith('application/json')));
      const norm = (x: { contentType: string; body: Record<string, unknown> }, wh: string) => ({
        json: v === '1.4' || x.contentType.toLowerCase().startsWith('application/json'),
        body: { ...x.body, path: String(x.body.path).replace(/^file:/, '').replace(wh, '<wh>') },
      });
      assert.equal(ourBodies.length, 2);
      assert.deepEqual(ourBodies.map((x) => norm(x, b)), javaBodies.map((x) => norm(x, a)));
      assert.deepEqual(ourBodies[0].body.partition, 'dt=2020-01-01/hour=01/');
      assert.equal(successFiles(b, 't_http').size, 2, 'success-file ran too');
      answer = '{"result":"fail"}';
      const failed = await ourMark(b, 't_http', 'dt=2020-01-02');
      assert.equal(failed.ok, false);
      if (!failed.ok) {
        assert.equal(failed.error.code, 'STORAGE_ERROR');
        assert.ok(!failed.error.message.includes('127.0.0.1'), 'the URL is not in the message');
      }
    });

    test('done-partition needs a metastore: NOT_SUPPORTED (Java fails on this catalog too); a bad spec marks nothing', async () => {
      const b = copyWarehouse(origin, `mark-${v}-done`);
      const o = await ourMark(b, 't_done', MARK_SPECS);
      assert.equal(o.ok, false);
      if (!o.ok) assert.equal(o.error.code, 'NOT_SUPPORTED');
      await assert.rejects(peer.runMain('PartitionTool', ['mark-done', b, DB, 't_done', MARK_SPECS]));
      const bad = await ourMark(b, 't_success', 'dt=2020-01-01;dtt=2020-01-02');
      assert.equal(bad.ok, false);
      if (!bad.ok) assert.equal(bad.error.code, 'INVALID_ARGUMENT');
      assert.equal(successFiles(b, 't_success').size, 0);
      const dry = await ourMark(b, 't_success', MARK_SPECS, { dry_run: true });
      assert.ok(dry.ok);
      assert.equal(successFiles(b, 't_success').size, 0);
    });
  });
}
