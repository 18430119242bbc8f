/**
 * The REST catalog against Paimon's own RESTCatalogServer (paimon-core tests jar, 1.4.2 and
 * 2.0.0; tests/setup/rest-catalog.sh), through the proxy over the MySQL protocol with a
 * `type: rest` catalog. The table is created and written by Paimon Java's RESTCatalog through the
 * server. Before each procedure the table directory is copied into a filesystem warehouse where
 * Paimon Java runs its own procedure; afterwards Paimon Java, through the same REST catalog, reads
 * the same rows from ours as from its copy and keeps writing, and the server's own latest snapshot
 * (`GET .../snapshot`, what it keeps in memory and checks 2.0 commits against) is ours: the commit
 * went through the catalog, not around it.
 *
 * Bad input: a catalog server that is not there and a wrong token are clear errors (the token
 * never in them) and change nothing.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../integration/wire-helpers.js';
import { createCatalogTable, errorOf, firstRowOf, sweepProcedures } from './catalog-support.js';
import mysql from 'mysql2/promise';
import { configSchema } from '../../src/config-schema.js';
import { silentLogger } from '../../src/observability/logger.js';
import { startProxy, type RunningProxy } from '../../src/proxy-app.js';
import { RestCatalog } from '../../src/paimon/catalog/rest-catalog.js';
import { java, tempWarehouse, toComparable, type PaimonJava, type PaimonJavaVersion, type Row } from './peers.js';
import { listTree } from './procedures-support.js';
import { startRestServer, type RestServer, type RestServerVersion } from './rest/rest-server.js';

const DB = 'interop';
const T = 't';
const TOKEN = 'rest-test-token-7f3a';
const DLF_KEY = { accessKeyId: 'dlf-test-ak', accessKeySecret: 'dlf-test-secret-4e2d', region: 'cn-hangzhou' };
const dlfProperties = (secret: string): Record<string, string> => ({
  'paimon.rest.token.provider': 'dlf',
  'paimon.rest.dlf.access-key-id': DLF_KEY.accessKeyId,
  'paimon.rest.dlf.access-key-secret': secret,
  'paimon.rest.dlf.region': DLF_KEY.region,
});
const VERSIONS: ReadonlyArray<[RestServerVersion, PaimonJavaVersion]> = [
  ['2.0.0', '2.0'],
  ['1.4.2', '1.4'],
];

/** Two days old (seconds, utimes): older than remove_orphan_files' default floor of one day. */
const TWO_DAYS_AGO = (Date.now() - 2 * 86_400_000) / 1000;

for (const [serverVersion, javaVersion] of VERSIONS) {
  describe(`REST catalog: Paimon ${serverVersion} RESTCatalogServer through the proxy`, () => {
    let server: RestServer;
    let jrest: PaimonJava;
    let jfs: PaimonJava;
    let proxy: RunningProxy;
    let conn: mysql.Connection;
    let tableDir: string;

    const call = (sql: string): Promise<Record<string, unknown>> => firstRowOf(conn, sql);
    const callError = (sql: string): Promise<{ message: string; errno: number }> => errorOf(conn, sql);
    /** The server's latest snapshot id (what it keeps in memory and checks commits against). */
    const serverLatest = async (): Promise<number | null> => {
      const res = await fetch(`${server.url}v1/paimon/databases/${DB}/tables/${T}/snapshot`, { headers: { Authorization: `Bearer ${TOKEN}` } });
      if (res.status === 404) return null;
      assert.equal(res.status, 200);
      const body = (await res.json()) as { snapshot: { snapshot: { id: number } } };
      return body.snapshot.snapshot.id;
    };
    const fileLatest = (dir: string): number => Number(readFileSync(join(dir, 'snapshot', 'LATEST'), 'utf8').trim());
    /** A filesystem warehouse holding a copy of the table, for Paimon Java's own procedure. */
    const copyTable = (label: string): string => {
      const wh = tempWarehouse(`rest-${serverVersion}-${label}`);
      mkdirSync(join(wh, `${DB}.db`), { recursive: true });
      cpSync(tableDir, join(wh, `${DB}.db`, T), { recursive: true, preserveTimestamps: true });
      return wh;
    };
    const readRest = (target?: string | number): Promise<Row[]> => jrest.read('rest', DB, T, target);
    const same = (a: Row[], b: Row[], msg: string): void => assert.deepEqual(toComparable(a), toComparable(b), msg);
    /** Paimon Java keeps writing through the REST catalog: a new snapshot, also the server's latest. */
    const javaKeepsWriting = async (start: number): Promise<void> => {
      const before = await serverLatest();
      const { commits } = await jrest.writeLoop('rest', DB, T, 1, 0, start);
      assert.equal(Number(commits[0]!.snapshotId), (before ?? 0) + 1, 'Java commits on top of our snapshot');
      assert.equal(await serverLatest(), (before ?? 0) + 1);
    };

    before(async () => {
      const dataPath = tempWarehouse(`rest-${serverVersion}-data`);
      server = await startRestServer(serverVersion, dataPath, 'rest_wh', TOKEN, { dlf: DLF_KEY });
      jrest = java(javaVersion).withCatalogOptions(server.clientOptions);
      jfs = java(javaVersion);
      await createCatalogTable(jrest, 'rest', DB, T);
      tableDir = join(dataPath, `${DB}.db`, T);
      assert.ok(existsSync(join(tableDir, 'snapshot', 'snapshot-10')), 'Java wrote 10 snapshots through the REST server');
      const down = `http://127.0.0.1:${await freePort()}`;
      const config = configSchema.parse({
        listen: { host: '127.0.0.1', port: 0 },
        catalogs: [
          { name: 'paimon', type: 'rest', uri: server.url, warehouse: server.warehouse, 'token.provider': 'bear', token: TOKEN },
          { name: 'badtoken', type: 'rest', uri: server.url, warehouse: server.warehouse, 'token.provider': 'bear', token: 'not-the-token-9c1e' },
          { name: 'down', type: 'rest', uri: down, warehouse: server.warehouse, properties: { 'token.provider': 'bear', token: TOKEN } },
          // Aliyun DLF as Doris spells it (paimon.rest.*); the region cannot be read from a loopback uri.
          { name: 'dlf', type: 'rest', uri: server.url, warehouse: server.warehouse, properties: dlfProperties(DLF_KEY.accessKeySecret) },
          { name: 'baddlf', type: 'rest', uri: server.url, warehouse: server.warehouse, properties: dlfProperties('not-the-dlf-secret-77') },
        ],
        logging: { level: 'silent' },
        security: { check_privileges: false },
        jobs: { dir: tempWarehouse(`rest-${serverVersion}-jobs`) },
      });
      proxy = await startProxy(config, { logger: silentLogger() });
      conn = await mysql.createConnection({ host: '127.0.0.1', port: proxy.address.port, user: 'root' });
    });

    after(async () => {
      await conn?.end();
      await proxy?.close();
      await server?.stop();
    });

    test('compact commits through the catalog; Java reads what its own compaction gives and writes on', async () => {
      const copy = copyTable('compact');
      await jfs.compact(copy, DB, T);
      const row = await call(`CALL paimon.sys.compact(\`table\` => '${DB}.${T}')`);
      assert.equal(Number(row.snapshot_id), 11);
      assert.equal(await serverLatest(), 11, "the server's latest snapshot is our compaction");
      const ours = JSON.parse(readFileSync(join(tableDir, 'snapshot', 'snapshot-11'), 'utf8')) as { commitKind: string; commitUser: string };
      assert.equal(ours.commitKind, 'COMPACT');
      assert.match(ours.commitUser, /^compact-/);
      same(await readRest(), await jfs.read(copy, DB, T), 'rows after our compact = rows after Java compact');
      await javaKeepsWriting(100);
    });

    test('create_tag: the tag reads as the one Java creates on its copy', async () => {
      const copy = copyTable('tag');
      await jfs.createTag(copy, DB, T, 'rest_tag', 3);
      const row = await call(`CALL paimon.sys.create_tag(\`table\` => '${DB}.${T}', tag => 'rest_tag', snapshot_id => 3)`);
      assert.equal(Number(row.snapshot_id), 3);
      same(await readRest('tag:rest_tag'), await jfs.read(copy, DB, T, 'tag:rest_tag'), 'tag rows');
      same(await readRest('tag:rest_tag'), await readRest(3), 'the tag holds snapshot 3');
      await javaKeepsWriting(200);
    });

    test('expire_snapshots leaves the same snapshots as Java on its copy; Java reads and writes on', async () => {
      const copy = copyTable('expire');
      const olderThan = Date.now();
      await jfs.expire(copy, DB, T, { retainMin: 2, retainMax: 3, olderThanMillis: olderThan, maxDeletes: 2147483647 });
      const row = await call(`CALL paimon.sys.expire_snapshots(\`table\` => '${DB}.${T}', retain_min => 2, retain_max => 3, older_than => '${olderThan}')`);
      assert.ok(Number(row.deleted_snapshots_count) > 5, `expired ${String(row.deleted_snapshots_count)}`);
      const snaps = (dir: string): string[] => listTree(join(dir, 'snapshot')).filter((f) => f.startsWith('snapshot-'));
      assert.deepEqual(snaps(tableDir), snaps(join(copy, `${DB}.db`, T)), 'same snapshot files as Java');
      same(await readRest(), await jfs.read(copy, DB, T), 'rows');
      same(await readRest('tag:rest_tag'), await jfs.read(copy, DB, T, 'tag:rest_tag'), 'the tag still reads');
      await javaKeepsWriting(300);
    });

    test('remove_orphan_files deletes what Java deletes on its copy; the table stays readable', async () => {
      const partition = readdirSync(tableDir).filter((d) => d.startsWith('dt=')).sort()[0]!;
      const bucket = readdirSync(join(tableDir, partition)).filter((d) => d.startsWith('bucket-')).sort()[0]!;
      const orphan = join(tableDir, partition, bucket, 'data-orphan-rest.parquet');
      writeFileSync(orphan, 'not referenced');
      utimesSync(orphan, TWO_DAYS_AGO, TWO_DAYS_AGO);
      const copy = copyTable('orphan');
      const cutoff = Date.now() - 86_400_000;
      const javaOut = await jfs.orphanClean(copy, DB, T, cutoff, false);
      const row = await call(`CALL paimon.sys.remove_orphan_files(\`table\` => '${DB}.${T}')`);
      assert.ok(Number(javaOut.deletedFileCount) >= 1);
      assert.equal(Number(row.deletedFileCount), Number(javaOut.deletedFileCount));
      assert.equal(existsSync(orphan), false);
      assert.deepEqual(listTree(tableDir), listTree(join(copy, `${DB}.db`, T)), 'same files left as Java');
      same(await readRest(), await jfs.read(copy, DB, T), 'rows');
      await javaKeepsWriting(400);
    });

    test('rollback through the catalog (RESTCatalog.rollbackTo): pinned to the latest, then as Java on its copy', async () => {
      const latest = fileLatest(tableDir);
      const target = latest - 2;
      const catalog = new RestCatalog('direct', { uri: server.url, warehouse: server.warehouse, tokenProvider: 'bear', token: TOKEN });
      let copy: string;
      try {
        const before = listTree(tableDir);
        await assert.rejects(catalog.rollbackTo({ database: DB, table: T }, { kind: 'snapshot', snapshotId: target }, latest - 1), 'a rollback pinned to an old latest is refused');
        assert.deepEqual(listTree(tableDir), before, 'a refused rollback changes nothing');
        await assert.rejects(catalog.rollbackTo({ database: DB, table: T }, { kind: 'snapshot', snapshotId: 99_999 }, latest), (e: { code?: string }) => e.code === 'SNAPSHOT_NOT_FOUND');
        copy = copyTable('rollback');
        await jfs.rollback(copy, DB, T, target);
        await catalog.rollbackTo({ database: DB, table: T }, { kind: 'snapshot', snapshotId: target }, latest);
      } finally {
        await catalog.close();
      }
      assert.equal(await serverLatest(), target);
      assert.equal(fileLatest(tableDir), target);
      same(await readRest(), await jfs.read(copy, DB, T), 'rows after the rollback = rows after Java rollback on its copy');
      const snaps = (dir: string): string[] => listTree(join(dir, 'snapshot')).filter((f) => f.startsWith('snapshot-'));
      assert.deepEqual(snaps(tableDir), snaps(join(copy, `${DB}.db`, T)), 'same snapshot files as Java');
      await javaKeepsWriting(500);
    });

    test('an unreachable catalog server and a wrong token are clear errors that change nothing', async () => {
      const before = listTree(tableDir);
      const latest = await serverLatest();
      const downErr = await callError(`CALL down.sys.compact(\`table\` => '${DB}.${T}')`);
      assert.match(downErr.message, /REST catalog 'down' at http:\/\/127\.0\.0\.1:\d+ is unreachable/);
      assert.match(downErr.message, /check that the catalog server runs/);
      const tokenErr = await callError(`CALL badtoken.sys.expire_snapshots(\`table\` => '${DB}.${T}', retain_max => 1, retain_min => 1)`);
      assert.match(tokenErr.message, /HTTP 401/);
      assert.match(tokenErr.message, /check the catalog token/);
      for (const m of [downErr.message, tokenErr.message]) {
        assert.ok(!m.includes(TOKEN) && !m.includes('not-the-token-9c1e'), `no token in: ${m}`);
      }
      const missing = await callError(`CALL paimon.sys.compact(\`table\` => '${DB}.nope')`);
      assert.equal(missing.errno, 1146, `a missing table is ER_NO_SUCH_TABLE: ${missing.message}`);
      assert.deepEqual(listTree(tableDir), before);
      assert.equal(await serverLatest(), latest);
    });

    test('rollback_to through the proxy goes through the catalog; Java reads what its own rollback gives', async () => {
      const latest = fileLatest(tableDir);
      const copy = copyTable('rollback-proxy');
      await jfs.rollback(copy, DB, T, latest - 1);
      const row = await call(`CALL paimon.sys.rollback_to(\`table\` => '${DB}.${T}', snapshot_id => ${latest - 1})`);
      assert.equal(Number(row.current_snapshot_id), latest - 1);
      assert.equal(await serverLatest(), latest - 1, "the server's latest follows the rollback");
      assert.equal(existsSync(join(tableDir, 'snapshot', `snapshot-${latest}`)), false, 'the server removed the later snapshot');
      same(await readRest(), await jfs.read(copy, DB, T), 'rows after the rollback = rows after Java rollback on its copy');
      await javaKeepsWriting(600);
    });

    test('every other tag and P2 procedure through the catalog: Java reads what it leaves and commits on top of it', async () => {
      const done = await sweepProcedures({
        catalog: 'paimon',
        table: `${DB}.${T}`,
        conn,
        latest: async () => (await serverLatest()) ?? 0,
        read: (target) => readRest(target),
        javaWrites: () => javaKeepsWriting(800),
      });
      assert.equal(done.length, 15);
    });

    test('a DLF catalog (Doris spelling): its requests carry the signature Paimon\'s DLF signer checks; a wrong secret is refused clearly and changes nothing', async () => {
      // Two more commits of Java, so that a full compaction has files to merge.
      await javaKeepsWriting(500);
      await javaKeepsWriting(500);
      const before = await serverLatest();
      const bad = await callError(`CALL baddlf.sys.compact(\`table\` => '${DB}.${T}', compact_strategy => 'full')`);
      assert.match(bad.message, /REST catalog 'baddlf' at http:\/\/[^ ]+ refused .*HTTP 401, not authorized.*check the catalog DLF access key/);
      assert.ok(!bad.message.includes('not-the-dlf-secret-77') && !bad.message.includes(DLF_KEY.accessKeySecret), bad.message);
      assert.equal(await serverLatest(), before, 'a refused catalog changed nothing');
      // Reading the config, the table and its snapshots (GETs with queries) and committing (a POST
      // whose body is signed by its MD5) all pass the server's check of the DLF signature.
      const row = await call(`CALL dlf.sys.compact(\`table\` => '${DB}.${T}', compact_strategy => 'full')`);
      assert.equal(Number(row.snapshot_id), (before ?? 0) + 1);
      assert.equal(await serverLatest(), (before ?? 0) + 1, "the server's latest is the compaction committed through the DLF-signed catalog");
      const tag = await call(`CALL dlf.sys.create_tag(\`table\` => '${DB}.${T}', tag => 'dlf_tag')`);
      assert.ok(tag !== undefined);
      await javaKeepsWriting(600);
    });

    test('branches are created, dropped and fast-forwarded by the catalog; renames and merges are NOT_SUPPORTED', async () => {
      const headers = { Authorization: `Bearer ${TOKEN}` };
      const serverBranches = async (): Promise<string[]> => {
        const res = await fetch(`${server.url}v1/paimon/databases/${DB}/tables/${T}/branches`, { headers });
        assert.equal(res.status, 200);
        return (((await res.json()) as { branches: string[] | null }).branches ?? []).sort();
      };
      /** The latest snapshot the server keeps for a branch (its own bookkeeping, moved only by its endpoints). */
      const serverBranchLatest = async (b: string): Promise<number> => {
        const res = await fetch(`${server.url}v1/paimon/databases/${DB}/tables/${encodeURIComponent(`${T}$branch_${b}`)}/snapshot`, { headers });
        assert.equal(res.status, 200);
        return ((await res.json()) as { snapshot: { snapshot: { id: number } } }).snapshot.snapshot.id;
      };
      // What Paimon Java's own RESTCatalog gets from this server for a branch from a tag decides
      // what ours must get: the same success, or a clear refusal.
      const javaFromTag = await jrest.createBranch('rest', DB, T, 'b_java', 'rest_tag').then(
        () => null,
        (e: Error) => e.message,
      );
      const fromTag = await conn.query(`CALL paimon.sys.create_branch(\`table\` => '${DB}.${T}', branch => 'b_rest', tag => 'rest_tag')`).then(
        () => null,
        (e: { message: string; errno: number }) => e,
      );
      if (javaFromTag === null) assert.equal(fromTag, null, 'Java creates a branch from the tag through this server, so do we');
      else {
        assert.ok(fromTag !== null, `Java's RESTCatalog could not (${javaFromTag.slice(0, 200)}), neither can we`);
        assert.match(fromTag.message, /REST catalog 'paimon' at http:\/\/[^ ]+: creating branch b_rest of interop\.t from tag rest_tag failed/);
      }
      // (Paimon 1.4.2's server answers 404 after it made the branch: what it leaves must be the same for both.)
      const afterTag = await serverBranches();
      assert.equal(afterTag.includes('b_rest'), afterTag.includes('b_java'), `the server keeps the same after our call as after Java's: ${afterTag.join(',')}`);
      await call(`CALL paimon.sys.create_branch(\`table\` => '${DB}.${T}', branch => 'b_drop')`);
      const made = [...afterTag, 'b_drop'].sort();
      assert.deepEqual(await serverBranches(), made, 'the server lists the branch we created');
      const again = await call(`CALL paimon.sys.create_branch(\`table\` => '${DB}.${T}', branch => 'b_drop', ignore_if_exists => 'true')`);
      assert.equal(Boolean(Number(again.created)), false, 'ignore_if_exists asks the catalog');
      await call(`CALL paimon.sys.delete_branch(\`table\` => '${DB}.${T}', branch => 'b_drop')`);
      assert.deepEqual(await serverBranches(), made.filter((b) => b !== 'b_drop'));
      assert.equal(existsSync(join(tableDir, 'branch', 'branch-b_drop')), false, 'the server removed the branch directory');
      for (const sql of [
        `CALL paimon.sys.rename_branch(\`table\` => '${DB}.${T}', from_branch => 'b_java', to_branch => 'b_new')`,
        `CALL paimon.sys.merge_branch(\`table\` => '${DB}.${T}', source_branch => 'b_java')`,
      ]) {
        const e = await callError(sql);
        assert.equal(e.errno, 1235, `${sql}: ${e.message}`);
        assert.match(e.message, /not supported by catalog 'paimon', which manages the table's versions itself/);
      }
      assert.deepEqual(await serverBranches(), made.filter((b) => b !== 'b_drop'), 'refusals change nothing');
      if (javaFromTag !== null) return;
      // Main moves on after the branch was made, so a fast-forward that did not go through the
      // catalog would leave the server's latest where main is.
      await javaKeepsWriting(700);
      const mainBefore = await serverLatest();
      const branchRecorded = await serverBranchLatest('b_rest');
      assert.notEqual(branchRecorded, mainBefore);
      const copy = copyTable('fast-forward');
      await jfs.runMain('BranchTool', ['fast-forward', copy, DB, T, 'b_rest']);
      const row = await call(`CALL paimon.sys.fast_forward(\`table\` => '${DB}.${T}', branch => 'b_rest', force => true)`);
      assert.equal(Number(row.current_snapshot_id), 3, "main's files are the branch's history: the tag's snapshot 3");
      assert.equal(await serverLatest(), branchRecorded, "the server moved main to the branch (its endpoint ran), not left it where it was");
      assert.deepEqual(listTree(join(tableDir, 'snapshot')).filter((f) => f.startsWith('snapshot-')), listTree(join(copy, `${DB}.db`, T, 'snapshot')).filter((f) => f.startsWith('snapshot-')), 'the snapshot files Java leaves on its copy');
      same(await jfs.read(join(tableDir, '..', '..'), DB, T), await jfs.read(copy, DB, T), 'rows after the fast-forward = rows after Java fast_forward on its copy');
    });
  });
}
