/**
 * Data tokens against Paimon's own RESTCatalogServer (1.4.2: the Java S3 peer, paimon-s3, is on
 * the 1.4.2 class path) and moto S3 with credentials enforced (moto's INITIAL_NO_AUTH_ACTION_COUNT:
 * after the first few requests every request must be signed with a key that exists in moto's IAM).
 *
 * The server runs its file-system catalog on s3:// with its own admin key and hands out per-table
 * tokens (RestServerLauncher's data-token mode, `data-token.enabled=true` in the config overrides).
 * Paimon Java and the proxy are configured with the S3 endpoint only, no key: every file of the
 * table is reached with the key of the token. Each token is an IAM access key of its own, so
 * deleting the key revokes the token for real.
 *
 * Covered: Java creates and writes the table through the server; our expire_snapshots and
 * remove_orphan_files through the proxy; Java reads the same rows afterwards; a short-lived token
 * is fetched again during an expire_snapshots run (our executor over the catalog) after the
 * server rotated keys; a token revoked at the store is fetched once more; a revoked token the
 * server keeps handing out is a clear error that names the table (no key in it) and changes
 * nothing. The tests run in order: each builds on the table the one before left.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import mysql from 'mysql2/promise';
import { freePort } from '../integration/wire-helpers.js';
import { createCatalogTable, errorOf, firstRowOf } from './catalog-support.js';
import { configSchema } from '../../src/config-schema.js';
import { silentLogger } from '../../src/observability/logger.js';
import { startProxy, type RunningProxy } from '../../src/proxy-app.js';
import { RestCatalog } from '../../src/paimon/catalog/rest-catalog.js';
import { DataTokenFileIO } from '../../src/paimon/catalog/rest/data-token.js';
import { S3FileIO } from '../../src/paimon/fs/s3-file-io.js';
import { isPaimonError } from '../../src/paimon/errors.js';
import { java, tempWarehouse, toComparable, type PaimonJava, type Row } from './peers.js';
import { startRestServer, type RestServer } from './rest/rest-server.js';
import { callNamed, firstRow } from './procedures-support.js';
import { CatalogSet } from '../../src/catalogs.js';
import { ProcedureExecutor } from '../../procedures/framework/executor.js';
import { ProcedureRegistry } from '../../procedures/framework/registry.js';
import { expireSnapshots } from '../../procedures/snapshots/expire-snapshots.js';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');
const MOTO = join(ROOT, 'tests/setup/.venv-moto/bin');
const DB = 'interop';
const T = 't';
const TABLE = `${DB}.${T}`;
const BEARER = 'rest-token-bearer-5d2c';
// No "file" in these names: the test server rewrites the first "file" of a path in some modes.
const BUCKET = 'tok-bucket';
const LOCATION = `s3://${BUCKET}/wh/${DB}.db/${T}`;
const HOUR = 3_600_000;
/** Requests moto serves before it enforces credentials: creating the admin user, its policy and key. */
const NO_AUTH_ACTIONS = 3;

interface Key {
  id: string;
  secret: string;
  /** The IAM user the key belongs to (moto allows two keys per user: one user per key). */
  user?: string;
}

/**
 * moto's IAM through boto3 from the moto venv (the admin key, from the environment, signs every
 * call after the first three).
 */
const IAM_SCRIPT = `
import boto3, json, os, sys
ep, cmd = sys.argv[1], sys.argv[2]
def client(svc, key=None):
    k = key or {"id": "bootstrap", "secret": "bootstrap"}
    return boto3.client(svc, endpoint_url=ep, region_name="us-east-1", aws_access_key_id=k["id"], aws_secret_access_key=k["secret"])
allow = lambda action: json.dumps({"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": action, "Resource": "*"}]})
if cmd == "bootstrap":
    iam = client("iam")
    iam.create_user(UserName="catalog-admin")
    iam.put_user_policy(UserName="catalog-admin", PolicyName="all", PolicyDocument=allow("*"))
    k = iam.create_access_key(UserName="catalog-admin")["AccessKey"]
    admin = {"id": k["AccessKeyId"], "secret": k["SecretAccessKey"]}
    client("s3", admin).create_bucket(Bucket=sys.argv[3])
    print(json.dumps(admin))
else:
    iam = client("iam", json.loads(os.environ["MOTO_ADMIN_KEY"]))
    if cmd == "create-key":
        user = sys.argv[3]
        iam.create_user(UserName=user)
        iam.put_user_policy(UserName=user, PolicyName="s3", PolicyDocument=allow("s3:*"))
        k = iam.create_access_key(UserName=user)["AccessKey"]
        print(json.dumps({"id": k["AccessKeyId"], "secret": k["SecretAccessKey"], "user": user}))
    elif cmd == "delete-key":
        iam.delete_access_key(UserName=sys.argv[3], AccessKeyId=sys.argv[4])
`;

/** TCP readiness only: an HTTP probe would use up one of moto's unauthenticated requests. */
async function waitForPort(port: number, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error('moto_server exited before listening');
    const ok = await new Promise<boolean>((r) => {
      const c = connect(port, '127.0.0.1');
      c.once('connect', () => (c.destroy(), r(true)));
      c.once('error', () => r(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('moto_server did not listen within 20 s');
}

describe('REST catalog data tokens: Paimon 1.4.2 RESTCatalogServer on moto S3 with enforced credentials', () => {
  let moto: ChildProcess;
  let endpoint: string;
  let admin: Key;
  let server: RestServer;
  let jrest: PaimonJava;
  let proxy: RunningProxy;
  let conn: mysql.Connection;
  let adminIO: S3FileIO;
  /** Every key handed out so far (none may appear in a message). */
  const issued: Key[] = [];

  const iam = async (...args: string[]): Promise<string> =>
    (await run(join(MOTO, 'python'), ['-c', IAM_SCRIPT, endpoint, ...args], { timeout: 60_000, env: { ...process.env, MOTO_ADMIN_KEY: admin !== undefined ? JSON.stringify(admin) : '' } })).stdout.trim();
  const newKey = async (): Promise<Key> => {
    const k = JSON.parse(await iam('create-key', `table-writer-${issued.length}`)) as Key;
    issued.push(k);
    return k;
  };
  const deleteKey = async (k: Key): Promise<void> => {
    await iam('delete-key', k.user!, k.id);
  };
  /** What the server hands out for the table from now on: the key as Paimon S3 options. */
  const serveToken = (k: Key, expiresIn: number): Promise<void> => server.setDataToken(TABLE, { 's3.access-key': k.id, 's3.secret-key': k.secret }, Date.now() + expiresIn);
  const s3Options = (): Record<string, string> => ({ 's3.endpoint': endpoint, 's3.region': 'us-east-1', 's3.path.style.access': 'true' });
  const call = (sql: string): Promise<Record<string, unknown>> => firstRowOf(conn, sql);
  const same = (a: Row[], b: Row[], msg: string): void => assert.deepEqual(toComparable(a), toComparable(b), msg);
  const readJava = (): Promise<Row[]> => jrest.read('rest', DB, T);
  const files = async (): Promise<string[]> => {
    const out: string[] = [];
    for await (const s of adminIO.listRecursive(LOCATION)) out.push(s.path.slice(LOCATION.length));
    return out.sort();
  };
  const snapshots = async (): Promise<string[]> => (await files()).filter((f) => /^\/snapshot\/snapshot-\d+$/.test(f));
  const assertNoKeyIn = (text: string): void => {
    for (const k of [admin, ...issued]) {
      assert.ok(!text.includes(k.secret), 'no secret key in the message');
      assert.ok(!text.includes(k.id), 'no access key id in the message');
    }
  };

  before(async () => {
    if (!existsSync(join(MOTO, 'moto_server'))) throw new Error('moto is not installed: run moto_install from tests/setup/moto.sh');
    const port = await freePort();
    endpoint = `http://127.0.0.1:${port}`;
    moto = spawn(join(MOTO, 'moto_server'), ['-H', '127.0.0.1', '-p', String(port)], {
      stdio: 'ignore',
      env: { ...process.env, INITIAL_NO_AUTH_ACTION_COUNT: String(NO_AUTH_ACTIONS) },
    });
    await waitForPort(port, moto);
    admin = JSON.parse(await iam('bootstrap', BUCKET)) as Key;
    adminIO = new S3FileIO({ endpoint, region: 'us-east-1', accessKeyId: admin.id, secretAccessKey: admin.secret, forcePathStyle: true });

    server = await startRestServer('1.4.2', `s3://${BUCKET}/wh`, 'rest_wh', BEARER, {
      dataTokens: { ...s3Options(), 's3.access-key': admin.id, 's3.secret-key': admin.secret },
    });
    await serveToken(await newKey(), 2 * HOUR);
    jrest = java('1.4').withCatalogOptions({ ...server.clientOptions, ...s3Options() });
    await createCatalogTable(jrest, 'rest', DB, T);
    const config = configSchema.parse({
      listen: { host: '127.0.0.1', port: 0 },
      catalogs: [{ name: 'paimon', type: 'rest', uri: server.url, warehouse: server.warehouse, 'token.provider': 'bear', token: BEARER, properties: s3Options() }],
      logging: { level: 'silent' },
      security: { check_privileges: false },
      jobs: { dir: tempWarehouse('rest-token-jobs') },
    });
    proxy = await startProxy(config, { logger: silentLogger() });
    conn = await mysql.createConnection({ host: '127.0.0.1', port: proxy.address.port, user: 'root' });
  });

  after(async () => {
    await conn?.end();
    await proxy?.close();
    await server?.stop();
    await adminIO?.close();
    if (moto !== undefined && moto.exitCode === null && moto.pid !== undefined) {
      const exited = new Promise<void>((r) => moto.once('exit', () => r()));
      process.kill(moto.pid, 'SIGTERM');
      const timer = setTimeout(() => moto.pid !== undefined && moto.exitCode === null && process.kill(moto.pid, 'SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
  });

  test('Java wrote the table on S3 with the token; without a key of its own the store refuses', async () => {
    assert.equal((await snapshots()).length, 10, 'Java wrote 10 snapshots through the REST server');
    const noKey = new S3FileIO({ endpoint, region: 'us-east-1', accessKeyId: 'AKIANOTAKEY000000000', secretAccessKey: 'not-a-secret', forcePathStyle: true });
    try {
      await assert.rejects(noKey.readFile(`${LOCATION}/snapshot/LATEST`), (e) => isPaimonError(e, 'STORAGE_ERROR') && /InvalidAccessKeyId|403/.test((e as Error).message));
    } finally {
      await noKey.close();
    }
  });

  test('expire_snapshots through the proxy on the token; Java reads the same rows afterwards', async () => {
    const rowsBefore = await readJava();
    const row = await call(`CALL paimon.sys.expire_snapshots(\`table\` => '${TABLE}', retain_max => 5, retain_min => 1)`);
    assert.equal(Number(row.deleted_snapshots_count), 5);
    assert.deepEqual(await snapshots(), ['/snapshot/snapshot-10', '/snapshot/snapshot-6', '/snapshot/snapshot-7', '/snapshot/snapshot-8', '/snapshot/snapshot-9']);
    same(await readJava(), rowsBefore, 'Java reads the same rows');
  });

  test('remove_orphan_files through the proxy on the token deletes the orphan; Java reads the same rows', async () => {
    const rowsBefore = await readJava();
    const dir = (await files()).find((f) => /^\/dt=[^/]+\/bucket-\d+\/data-/.test(f))!.replace(/\/[^/]+$/, '');
    const orphan = `${LOCATION}${dir}/data-orphan-token.parquet`;
    await adminIO.writeFile(orphan, 'not referenced');
    await new Promise((r) => setTimeout(r, 1_500));
    const olderThan = Date.now() - 200;
    const row = await call(`CALL paimon.sys.remove_orphan_files(\`table\` => '${TABLE}', older_than => '${olderThan}', force => true)`);
    assert.equal(Number(row.deletedFileCount), 1);
    assert.equal(await adminIO.exists(orphan), false);
    same(await readJava(), rowsBefore, 'Java reads the same rows');
  });

  test('a token that expires within the safety margin is fetched again during a run, while the server rotates keys', async () => {
    const first = await newKey();
    await serveToken(first, 10 * 60_000);
    const catalog = new RestCatalog('paimon', { uri: server.url, warehouse: server.warehouse, tokenProvider: 'bear', token: BEARER, properties: s3Options() });
    try {
      const table = await catalog.getTable(TABLE);
      assert.ok(table.fileIO instanceof DataTokenFileIO, 'the table is opened with its token FileIO');
      const io = table.fileIO;
      const latest = `${LOCATION}/snapshot/LATEST`;
      const n0 = io.tokenFetches;
      await io.readFile(latest);
      assert.equal(io.tokenFetches, n0 + 1, 'ten minutes left (< 1 h margin): fetched again at the next access');
      // Rotate: the first key is gone at the store, so only a new fetch can reach the table.
      const second = await newKey();
      await serveToken(second, 10 * 60_000);
      await deleteKey(first);
      await jrest.writeLoop('rest', DB, T, 1, 0, 500);
      const rowsBefore = await readJava();
      const n1 = io.tokenFetches;
      const executor = new ProcedureExecutor({
        registry: new ProcedureRegistry([expireSnapshots]),
        catalogs: new CatalogSet([catalog]),
        limits: configSchema.parse({}).procedures,
      });
      const row = firstRow(await callNamed(executor, 'expire_snapshots', { table: TABLE, retain_max: 5, retain_min: 1 }));
      assert.equal(Number(row.deleted_snapshots_count), 1);
      assert.ok(io.tokenFetches - n1 >= 3, `the token was fetched again during the run (${io.tokenFetches - n1} times)`);
      same(await readJava(), rowsBefore, 'Java reads the same rows');
      await serveToken(second, 3 * HOUR);
      await io.readFile(latest);
      const n2 = io.tokenFetches;
      await io.readFile(latest);
      assert.equal(io.tokenFetches, n2, 'a token valid beyond the margin is reused');
    } finally {
      await catalog.close();
    }
  });

  test('a token revoked at the store is fetched once more and the run goes on', async () => {
    const held = await newKey();
    await serveToken(held, 3 * HOUR);
    const catalog = new RestCatalog('direct2', { uri: server.url, warehouse: server.warehouse, tokenProvider: 'bear', token: BEARER, properties: s3Options() });
    try {
      const table = await catalog.getTable(TABLE);
      const io = table.fileIO as DataTokenFileIO;
      const n0 = io.tokenFetches;
      const replacement = await newKey();
      await serveToken(replacement, 3 * HOUR);
      await deleteKey(held);
      assert.equal(await io.exists(`${LOCATION}/snapshot/LATEST`), true);
      assert.equal(io.tokenFetches, n0 + 1, 'one fetch after the refusal');
    } finally {
      await catalog.close();
    }
  });

  test('a revoked token the server keeps handing out is a clear error, with no key in it, and nothing changes', async () => {
    const revoked = await newKey();
    await serveToken(revoked, 3 * HOUR);
    await deleteKey(revoked);
    // The proxy's catalog still holds the first token (2 h); revoke that key too.
    await deleteKey(issued[0]!);
    const before = await files();
    const err = await errorOf(conn, `CALL paimon.sys.expire_snapshots(\`table\` => '${TABLE}', retain_max => 1, retain_min => 1)`);
    assert.match(err.message, /interop\.t/);
    assert.match(err.message, /data token/);
    assertNoKeyIn(err.message);
    assert.deepEqual(await files(), before, 'nothing changed');
    // A good token again: the same proxy catalog recovers, and Java reads the rows.
    const good = await newKey();
    await serveToken(good, 2 * HOUR);
    const rows = await readJava();
    assert.ok(rows.length > 0);
    const row = await call(`CALL paimon.sys.expire_snapshots(\`table\` => '${TABLE}', retain_max => 4, retain_min => 1)`);
    assert.equal(Number(row.deleted_snapshots_count), 1);
    same(await readJava(), rows, 'Java reads the same rows');
  });
});
