/**
 * End to end on a table written by Paimon Java (2.0.0): the mariadb CLI sends
 * `CALL paimon.sys.expire_snapshots(...)` to the proxy in standalone mode, and the
 * `paimon-procedure-proxy call` command runs `rollback_to`; the same operations are done by
 * Paimon Java's own implementation on a copy, and both copies must end with the same files,
 * pass Paimon's own consistency check and read the same rows in Paimon Java.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { configSchema } from '../../src/config-schema.js';
import { silentLogger } from '../../src/observability/logger.js';
import { startProxy, type RunningProxy } from '../../src/proxy-app.js';
import { buildHistory, copyWarehouse, javaAvailable, listTree, paimon, readRows, tempDir } from '../interop/procedures-support.js';

const V = '2.0.0' as const;
const TABLE = 'interop.db/t';
const ROOT = join(import.meta.dirname, '..', '..');

function run(cmd: string, args: string[], timeoutMs = 120_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PPP_CONFIG: '' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('procedures on a Paimon Java table through the mariadb CLI and the call command', () => {
  let java: string;
  let ours: string;
  let proxy: RunningProxy;

  before(async () => {
    assert.ok(javaAvailable(V), `Paimon ${V} reference tool is not built (tests/setup/paimon-java.sh)`);
    const dir = tempDir('call-e2e-');
    const origin = join(dir, 'origin');
    await buildHistory(V, origin);
    java = join(dir, 'java');
    ours = join(dir, 'ours');
    copyWarehouse(origin, java);
    copyWarehouse(origin, ours);
    const config = configSchema.parse({
      listen: { host: '127.0.0.1', port: 0 },
      catalogs: [{ name: 'paimon', warehouse: ours }],
      logging: { level: 'silent' },
    });
    proxy = await startProxy(config, { logger: silentLogger() });
  });
  after(async () => {
    await proxy?.close();
  });

  const cli = (sql: string) =>
    run('mariadb', ['--no-defaults', '-h', '127.0.0.1', '-P', String(proxy.address.port), '-u', 'root', '--skip-ssl', '--batch', '-e', sql]);

  test('expire_snapshots from the mariadb CLI: dry run changes nothing, the real run ends like Paimon Java', async () => {
    const before = listTree(join(ours, TABLE));
    const olderThan = Date.now();
    const args = `table => 'interop.t', retain_max => 3, retain_min => 1, older_than => '${olderThan}', max_deletes => 50`;
    const dry = await cli(`CALL paimon.sys.expire_snapshots(${args}, dry_run => true)`);
    assert.equal(dry.code, 0, dry.stderr);
    const [head, row] = dry.stdout.trim().split('\n');
    const cols = head!.split('\t');
    const dryRow = Object.fromEntries(cols.map((c, i) => [c, row!.split('\t')[i]]));
    assert.equal(dryRow['dry_run'], '1');
    assert.equal(dryRow['changed'], '0');
    assert.ok(Number(dryRow['deleted_snapshots_count']) > 0, dry.stdout);
    assert.deepEqual(listTree(join(ours, TABLE)), before, 'a dry run changes nothing');

    await paimon(V, 'expire', java, 'interop', 't', '1', '3', String(olderThan), '50');
    const real = await cli(`CALL paimon.sys.expire_snapshots(${args})`);
    assert.equal(real.code, 0, real.stderr);
    assert.match(real.stdout, /^deleted_snapshots_count\tchanged\tdry_run/);
    assert.equal(real.stdout.split('\n')[1]!.split('\t')[0], dryRow['deleted_snapshots_count'], 'the dry run predicted the real run');
    assert.deepEqual(listTree(join(ours, TABLE)), listTree(join(java, TABLE)), 'same files as Paimon Java');
    assert.equal(((await paimon(V, 'check', ours, 'interop', 't')) as { ok: boolean }).ok, true);
    assert.deepEqual(await readRows(V, ours, 'interop', 't'), await readRows(V, java, 'interop', 't'));
  });

  test('Connector/J reads the result, warnings and info text of real CALLs, plain and server-prepared', async () => {
    const jar = process.env.CONNECTOR_J_JAR ?? join(ROOT, 'tests/integration/jdbc/lib/mysql-connector-j-8.4.0.jar');
    const probe = join(ROOT, 'tests/integration/jdbc/JdbcProbe.java');
    const url = `jdbc:mysql://127.0.0.1:${proxy.address.port}/interop?sslMode=DISABLED&useServerPrepStmts=true`;
    const r = await run('java', ['-cp', jar, probe, url, 'root', '',
      "CALL paimon.sys.rollback_to(table => 'interop.t', tag => 'tag_mid', dry_run => true)",
      "CALL paimon.sys.expire_snapshots(table => 'interop.t', retain_max => 1, retain_min => 1, dry_run => true)",
      '@prepared CALL paimon.sys.rollback_to(table => ?, tag => ?, dry_run => true)|interop.t|tag_mid',
      'SHOW DATABASES']);
    assert.equal(r.code, 0, r.stderr);
    const blocks = r.stdout.split(/^> /m);
    for (const b of blocks.filter((x) => /^(prepared )?CALL/.test(x))) assert.doesNotMatch(b, /^ERR/m, r.stdout);
    const rollback = blocks.find((b) => b.startsWith('CALL paimon.sys.rollback_to'))!;
    const prepared = blocks.find((b) => b.startsWith('prepared CALL paimon.sys.rollback_to'))!;
    assert.match(rollback, /COLUMNS\tprevious_snapshot_id:BIGINT/);
    assert.equal(prepared.slice(prepared.indexOf('\n')), rollback.slice(rollback.indexOf('\n')));
    assert.match(blocks.find((b) => b.startsWith('CALL paimon.sys.expire_snapshots'))!, /COLUMNS\tdeleted_snapshots_count:INT/);
    assert.match(r.stdout, /ROW\tinterop/);
  });

  test('rollback_to a tag with the call command (JSON) ends like Paimon Java', async () => {
    await paimon(V, 'rollback', java, 'interop', 't', 'tag:tag_mid');
    const r = await run(process.execPath, [
      '--import', 'tsx', join(ROOT, 'src/cli.ts'), 'call', "CALL paimon.sys.rollback_to(`table` => 'interop.t', tag => 'tag_mid')", '--warehouse', ours, '--json',
    ]);
    assert.equal(r.code, 0, r.stderr);
    const doc = JSON.parse(r.stdout) as { rows: Record<string, unknown>[] };
    assert.equal(doc.rows.length, 1);
    assert.ok(typeof doc.rows[0]!['previous_snapshot_id'] === 'number', r.stdout);
    assert.deepEqual(listTree(join(ours, TABLE)), listTree(join(java, TABLE)), 'same files as Paimon Java');
    assert.deepEqual(await readRows(V, ours, 'interop', 't'), await readRows(V, java, 'interop', 't'));
    // Errors from the command line keep their codes.
    const bad = await run(process.execPath, [
      '--import', 'tsx', join(ROOT, 'src/cli.ts'), 'call', "CALL paimon.sys.rollback_to(`table` => 'interop.t', tag => 'no_such_tag')", '--warehouse', ours,
    ]);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /^ERROR \d+ \(\w{5}\) \[TAG_NOT_FOUND\]: .*no_such_tag/m);
  });
});
