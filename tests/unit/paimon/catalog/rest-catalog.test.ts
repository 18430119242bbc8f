/**
 * RestCatalog and its HTTP client against a scripted server (rest-fake-server.ts): the config
 * merge (`ConfigResponse.merge`: defaults < client < overrides; prefix and header.* taken from
 * it), bearer auth, pagination, the error codes of each answer, the token kept out of every
 * message, getTable registering the table so FileStoreCommit commits through the catalog
 * (CommitTableRequest body, a `success: false` retried from the new latest), rollbackTo's body.
 * The real server (Paimon's RESTCatalogServer) is in tests/interop/catalog-rest.test.ts.
 */
import { describe, test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RestCatalog } from '../../../../src/paimon/catalog/rest-catalog.js';
import { FileSystemCatalog } from '../../../../src/paimon/catalog/filesystem-catalog.js';
import { catalogSnapshotCommitOf } from '../../../../src/paimon/catalog/snapshot-commit.js';
import { DataTypes } from '../../../../src/paimon/spec/data-types.js';
import { isPaimonError } from '../../../../src/paimon/errors.js';
import { snapshotToJson, type Snapshot } from '../../../../src/paimon/spec/snapshot.js';
import { parseJson } from '../../../../src/paimon/spec/json.js';
import { CONFIG_OK, on, startFakeServer, type FakeServer, type RecordedRequest } from './rest-fake-server.js';

const TOKEN = 'tok-3b9f-secret';

function catalog(server: FakeServer, extra: { properties?: Record<string, string>; timeoutMs?: number } = {}): RestCatalog {
  return new RestCatalog('rc', { uri: server.url, warehouse: 'wh1', tokenProvider: 'bear', token: TOKEN, timeoutMs: 5_000, ...extra });
}

function noToken(e: unknown): boolean {
  const text = `${(e as Error).message} ${JSON.stringify(e)}`;
  return !text.includes(TOKEN);
}

describe('RestCatalog: configuration, listing, errors', () => {
  let server: FakeServer;
  before(async () => {
    server = await startFakeServer();
  });
  after(async () => server.close());
  beforeEach(() => {
    server.requests.length = 0;
  });

  test('GET /v1/config with the warehouse, then defaults < client < overrides; prefix and header.* from the merge', async () => {
    server.routes = [
      on('GET', '/v1/config', () => ({
        json: {
          defaults: { prefix: 'my prefix', 'header.X-From-Server': 's', 's3.endpoint': 'http://default', 'only.default': 'd' },
          overrides: { 's3.endpoint': 'http://override' },
        },
      })),
      on('GET', '/v1/my%20prefix/databases', () => ({ json: { databases: ['b', 'a'] } })),
    ];
    const c = catalog(server, { properties: { 's3.endpoint': 'http://client', 'header.X-From-Client': 'c' } });
    assert.equal(server.requests.length, 0, 'nothing is asked before the first use');
    assert.deepEqual(await c.listDatabases(), ['a', 'b']);
    const [cfg, list] = server.requests;
    assert.equal(cfg!.path, '/v1/config');
    assert.equal(cfg!.query.get('warehouse'), 'wh1');
    assert.equal(cfg!.headers.authorization, `Bearer ${TOKEN}`);
    assert.equal(list!.headers.authorization, `Bearer ${TOKEN}`);
    assert.equal(list!.headers['x-from-server'], 's');
    assert.equal(list!.headers['x-from-client'], 'c');
    const opts = await c.options();
    assert.equal(opts['s3.endpoint'], 'http://override');
    assert.equal(opts['only.default'], 'd');
    assert.equal(opts.prefix, 'my prefix');
    assert.ok(!Object.values(opts).includes(TOKEN), 'the token is not among the merged options');
    assert.equal(server.requests.filter((r) => r.path === '/v1/config').length, 1, 'the config is fetched once');
  });

  test('listings follow nextPageToken; a repeated token is an error, not a loop', async () => {
    server.routes = [
      CONFIG_OK,
      on('GET', '/v1/paimon/databases/db/tables', (r) => {
        const t = r.query.get('pageToken');
        if (t === null) return { json: { tables: ['t3', 't1'], nextPageToken: 'p2' } };
        if (t === 'p2') return { json: { tables: ['t2'], nextPageToken: 'p3' } };
        return { json: { tables: [], nextPageToken: null } };
      }),
      on('GET', '/v1/paimon/databases/loop/tables', () => ({ json: { tables: ['x'], nextPageToken: 'same' } })),
    ];
    const c = catalog(server);
    assert.deepEqual(await c.listTables('db'), ['t1', 't2', 't3']);
    await assert.rejects(c.listTables('loop'), (e) => isPaimonError(e, 'STORAGE_ERROR') && /repeated a page token/.test((e as Error).message));
  });

  test('401 and 403 say to check the catalog token, and never contain it (even when the server echoes it)', async () => {
    server.routes = [on('GET', '/v1/config', () => ({ status: 401, json: { message: `bad token ${TOKEN}`, code: 401 } }))];
    const c = catalog(server);
    await assert.rejects(c.listDatabases(), (e) => {
      assert.match((e as Error).message, /REST catalog 'rc' at http:\/\/127\.0\.0\.1:\d+ refused .*HTTP 401.*check the catalog token/);
      assert.ok(noToken(e), (e as Error).message);
      return true;
    });
    server.routes = [CONFIG_OK, on('GET', '/v1/paimon/databases', () => ({ status: 403, json: { message: 'no grant', code: 403 } }))];
    await assert.rejects(c.listDatabases(), (e) => /HTTP 403, forbidden\): no grant; check the catalog token and its grants/.test((e as Error).message) && noToken(e));
  });

  test('404 answers map to the missing resource; existence checks answer false', async () => {
    server.routes = [
      CONFIG_OK,
      on('GET', '/v1/paimon/databases/nodb/tables', () => ({ status: 404, json: { message: 'no such database', resourceType: 'DATABASE', resourceName: 'nodb', code: 404 } })),
      on('GET', '/v1/paimon/databases/nodb', () => ({ status: 404, json: { message: 'x', resourceType: 'DATABASE', code: 404 } })),
      on('GET', '/v1/paimon/databases/db', () => ({ json: { name: 'db' } })),
      on('GET', '/v1/paimon/databases/db/tables/gone', () => ({ status: 404, json: { message: 'x', resourceType: 'TABLE', code: 404 } })),
    ];
    const c = catalog(server);
    await assert.rejects(c.listTables('nodb'), (e) => isPaimonError(e, 'DATABASE_NOT_FOUND') && /database nodb not found/.test((e as Error).message));
    assert.equal(await c.databaseExists('nodb'), false);
    assert.equal(await c.databaseExists('db'), true);
    assert.equal(await c.tableExists('db.gone'), false);
    assert.equal(await c.tableLocation('db', 'gone'), null);
    await assert.rejects(c.getTable('db.gone'), (e) => isPaimonError(e, 'TABLE_NOT_FOUND'));
    await assert.rejects(c.getTable('nodb.t'), (e) => isPaimonError(e, 'DATABASE_NOT_FOUND'));
    await assert.rejects(c.getTable('db.gone$snapshots'), (e) => isPaimonError(e, 'UNSUPPORTED_TABLE'));
  });

  test('409 is a conflict (nothing changed, retry), 400 a bad request, 501 unsupported, 500 a server failure', async () => {
    const answers: Record<string, { status: number; json: unknown }> = {
      a: { status: 409, json: { message: 'moved', code: 409 } },
      b: { status: 400, json: { message: 'bad', code: 400 } },
      c: { status: 501, json: { message: 'nope', code: 501 } },
      d: { status: 500, json: { message: 'boom', code: 500 } },
    };
    server.routes = [CONFIG_OK, (r) => (r.method === 'POST' && r.path.endsWith('/rollback') ? answers[r.path.split('/')[6]!.slice(0, 1)] ?? null : null)];
    const c = catalog(server);
    const rb = (t: string): Promise<void> => c.rollbackTo({ database: 'db', table: t }, { kind: 'snapshot', snapshotId: 1 });
    await assert.rejects(rb('a'), (e) => isPaimonError(e, 'COMMIT_CONFLICT') && /nothing was changed, retry/.test((e as Error).message));
    await assert.rejects(rb('b'), (e) => isPaimonError(e, 'INVALID_ARGUMENT'));
    await assert.rejects(rb('c'), (e) => isPaimonError(e, 'UNSUPPORTED_TABLE'));
    await assert.rejects(rb('d'), (e) => isPaimonError(e, 'STORAGE_ERROR') && /HTTP 500\): boom/.test((e as Error).message));
  });

  test('rollbackTo sends the instant (snapshot or tag) and the pinned latest as RollbackTableRequest', async () => {
    server.routes = [CONFIG_OK, on('POST', '/v1/paimon/databases/db/tables/t%24branch_b/rollback', () => ({ status: 200 })), on('POST', '/v1/paimon/databases/db/tables/t/rollback', () => ({ status: 200 }))];
    const c = catalog(server);
    await c.rollbackTo({ database: 'db', table: 't' }, { kind: 'snapshot', snapshotId: 3 }, 5);
    await c.rollbackTo({ database: 'db', table: 't', branch: 'b' }, { kind: 'tag', tagName: 'eod' });
    const posts = server.requests.filter((r) => r.method === 'POST');
    assert.deepEqual(posts[0]!.body, { instant: { type: 'snapshot', snapshotId: 3 }, fromSnapshot: 5 });
    assert.deepEqual(posts[1]!.body, { instant: { type: 'tag', tagName: 'eod' } });
    assert.equal(posts[1]!.path, '/v1/paimon/databases/db/tables/t%24branch_b/rollback');
  });

  test('branches go through the catalog: create (from a tag), drop, fast-forward, list; their errors keep their codes', async () => {
    const base = '/v1/paimon/databases/db/tables/t/branches';
    server.routes = [
      CONFIG_OK,
      on('POST', base, (r) => ((r.body as { branch: string }).branch === 'dup' ? { status: 409, json: { message: 'exists', resourceType: 'BRANCH', resourceName: 'dup', code: 409 } } : { status: 200 })),
      on('DELETE', `${base}/gone`, () => ({ status: 404, json: { message: 'no', resourceType: 'BRANCH', resourceName: 'gone', code: 404 } })),
      on('DELETE', `${base}/b1`, () => ({ status: 200 })),
      on('POST', `${base}/b1/forward`, () => ({ status: 200 })),
      on('GET', base, () => ({ json: { branches: ['b1', 'a0'] } })),
    ];
    const c = catalog(server);
    await c.createBranch('db', 't', 'b1', 'tag1');
    await c.createBranch('db', 't', 'b2');
    await c.fastForward('db', 't', 'b1');
    await c.dropBranch('db', 't', 'b1');
    const sent = server.requests.filter((r) => r.method !== 'GET').map((r) => [r.method, r.path, r.body]);
    assert.deepEqual(sent, [
      ['POST', base, { branch: 'b1', fromTag: 'tag1' }],
      ['POST', base, { branch: 'b2' }],
      ['POST', `${base}/b1/forward`, {}],
      ['DELETE', `${base}/b1`, null],
    ]);
    assert.deepEqual(await c.listBranches('db', 't'), ['a0', 'b1']);
    assert.equal(await c.branchExists('db', 't', 'b1'), true);
    assert.equal(await c.branchExists('db', 't', 'zz'), false);
    await assert.rejects(c.createBranch('db', 't', 'dup'), (e) => isPaimonError(e, 'BRANCH_ALREADY_EXISTS'));
    await assert.rejects(c.dropBranch('db', 't', 'gone'), (e) => isPaimonError(e, 'BRANCH_NOT_FOUND'));
  });

  test('an unreachable server is a clear error naming the server, without the token', async () => {
    const dead = await startFakeServer();
    const url = dead.url;
    await dead.close();
    const c = new RestCatalog('gone', { uri: url, warehouse: 'wh1', tokenProvider: 'bear', token: TOKEN, timeoutMs: 2_000 });
    await assert.rejects(c.listDatabases(), (e) => {
      assert.ok(isPaimonError(e, 'STORAGE_ERROR'));
      assert.match((e as Error).message, /REST catalog 'gone' at http:\/\/127\.0\.0\.1:\d+ is unreachable while reading the configuration .*ECONNREFUSED.*check that the catalog server runs/);
      return noToken(e);
    });
  });

  test('a server that does not answer in time: one attempt, then a clear error', async () => {
    server.routes = [on('GET', '/v1/config', () => ({ hang: true }))];
    const c = catalog(server, { timeoutMs: 300 });
    await assert.rejects(c.listDatabases(), (e) => isPaimonError(e, 'STORAGE_ERROR') && /did not answer in time/.test((e as Error).message) && noToken(e));
    assert.equal(server.requests.length, 1, 'a timed-out GET is not repeated');
  });

  test('bad options are refused when the catalog is built', () => {
    const base = { warehouse: 'w', tokenProvider: 'bear' as const, token: TOKEN };
    assert.throws(() => new RestCatalog('x', { ...base, uri: 'not a url' }), (e) => isPaimonError(e, 'INVALID_ARGUMENT'));
    assert.throws(() => new RestCatalog('x', { ...base, uri: 'ftp://h' }), /must be http/);
    assert.throws(() => new RestCatalog('x', { ...base, uri: 'http://u:p@h' }), /must not carry credentials/);
    assert.throws(() => new RestCatalog('x', { ...base, uri: 'http://h', token: '' }), /token must not be empty/);
  });

  test("a table's own data-token.enabled does not decide: the catalog's options do, as in Java's RESTCatalog", async () => {
    server.routes = [
      CONFIG_OK,
      on('GET', '/v1/paimon/databases/db/tables/t', () => ({ json: { id: 'u1', name: 't', path: '/nowhere', schemaId: 0, schema: { options: { 'data-token.enabled': 'true' } } } })),
    ];
    // No token route: a token fetch would be answered 404 and fail the call.
    const t = await catalog(server).getTable('db.t');
    assert.equal(t.location, '/nowhere');
  });
});

describe('RestCatalog: commits through the catalog', () => {
  let server: FakeServer;
  let location: string;
  let answers: boolean[];
  const commits: RecordedRequest[] = [];

  before(async () => {
    const wh = mkdtempSync(join(process.env.TEST_TMP ?? tmpdir(), 'rest-commit-'));
    const fs = FileSystemCatalog.open(wh);
    await fs.createDatabase('db');
    const t = await fs.createTable('db.t', {
      fields: [
        { id: 0, name: 'id', type: DataTypes.simple('BIGINT') },
        { id: 1, name: 'dt', type: DataTypes.string() },
      ],
      partitionKeys: ['dt'],
      options: { bucket: '-1' },
    });
    location = t.location;
    server = await startFakeServer([
      CONFIG_OK,
      on('GET', '/v1/paimon/databases/db/tables/t', () => ({ json: { id: 'table-uuid-1', name: 't', path: location, schemaId: 0, schema: { options: {} }, isExternal: false } })),
      on('GET', '/v1/paimon/databases/db/tables/t/branches', () => ({ json: { branches: [] } })),
      on('POST', '/v1/paimon/databases/db/tables/t/commit', (r) => {
        commits.push(r);
        const ok = answers.shift() ?? true;
        if (ok) {
          // As RESTCatalogServer does: the catalog writes the snapshot file and the LATEST hint.
          const s = (r.body as { snapshot: { id: number } }).snapshot;
          mkdirSync(join(location, 'snapshot'), { recursive: true });
          writeFileSync(join(location, 'snapshot', `snapshot-${s.id}`), snapshotToJson(parseJson(JSON.stringify(s)) as unknown as Snapshot));
          writeFileSync(join(location, 'snapshot', 'LATEST'), String(s.id));
        }
        return { json: { success: ok } };
      }),
    ]);
  });
  after(async () => server.close());

  test('getTable registers the table: its commits POST CommitTableRequest; success:false retries from the new latest', async () => {
    const c = catalog(server);
    const t = await c.getTable('db.t');
    assert.equal(t.location, location);
    assert.ok(catalogSnapshotCommitOf(location, 'main') !== null, 'the location is registered for catalog commits');
    const { newAppendFileMeta } = await import('../../../../src/paimon/spec/data-file-meta.js');
    const { toBinaryRow, binaryFieldTypeFromSql } = await import('../../../../src/paimon/spec/binary-row.js');
    const { EMPTY_STATS } = await import('../../../../src/paimon/spec/simple-stats.js');
    const file = newAppendFileMeta({ fileName: 'data-1.parquet', fileSize: 123n, rowCount: 7n, valueStats: EMPTY_STATS, minSequenceNumber: 0n, maxSequenceNumber: 6n, schemaId: 0n, level: 0, creationTime: 1_700_000_000_000n });
    const entry = { kind: 'ADD' as const, partition: toBinaryRow([binaryFieldTypeFromSql('STRING')], ['2024-01-01']), bucket: 0, totalBuckets: -1, file };

    answers = [true];
    const first = await t.newCommit('u1', { sleep: async () => undefined }).commit({ kind: 'APPEND', deltaEntries: [entry], commitIdentifier: 1n });
    assert.equal(first.snapshot.id, 1);
    const body1 = commits[0]!.body as { tableId: string; baseSnapshotUuid: string | null; snapshot: { id: number; uuid: string }; statistics: unknown[] };
    assert.equal(body1.tableId, 'table-uuid-1');
    assert.equal(body1.baseSnapshotUuid, null, 'the first snapshot has no base');
    assert.equal(body1.snapshot.id, 1);
    // _CREATION_TIME is local wall-clock millis; Java reports it in epoch millis of the JVM's zone.
    const created = 1_700_000_000_000 + new Date(1_700_000_000_000).getTimezoneOffset() * 60_000;
    assert.deepEqual(body1.statistics, [{ spec: { dt: '2024-01-01' }, recordCount: 7, fileSizeInBytes: 123, fileCount: 1, lastFileCreationTime: created, totalBuckets: -1 }]);

    // The catalog refuses the first attempt (its latest moved on): the attempt's files go, the retry lands.
    answers = [false, true];
    const manifestsBefore = readdirSync(join(location, 'manifest')).length;
    const second = await (await c.getTable('db.t')).newCommit('u1', { sleep: async () => undefined }).commit({ kind: 'APPEND', deltaEntries: [{ ...entry, file: { ...file, fileName: 'data-2.parquet' } }], commitIdentifier: 2n });
    assert.equal(second.snapshot.id, 2);
    assert.equal(second.attempts, 2);
    const [refused, landed] = commits.slice(1) as [RecordedRequest, RecordedRequest];
    assert.equal((refused.body as { baseSnapshotUuid: string }).baseSnapshotUuid, first.snapshot.uuid, 'the base is snapshot 1, by its uuid');
    assert.notEqual((refused.body as { snapshot: { deltaManifestList: string } }).snapshot.deltaManifestList, (landed.body as { snapshot: { deltaManifestList: string } }).snapshot.deltaManifestList);
    assert.equal(existsSync(join(location, 'manifest', (refused.body as { snapshot: { deltaManifestList: string } }).snapshot.deltaManifestList)), false, "the refused attempt's manifests are removed");
    assert.equal(readdirSync(join(location, 'manifest')).length, manifestsBefore + 3, 'only the landed attempt left files (delta manifest, base and delta lists)');
    await c.close();
    assert.equal(catalogSnapshotCommitOf(location, 'main'), null, 'closing the catalog forgets its tables');
  });
});
