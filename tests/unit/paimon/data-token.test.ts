/**
 * Data tokens of a REST catalog (src/paimon/catalog/rest/data-token.ts, Java's RESTTokenFileIO):
 * the pure rules (when a token is fetched again, how its options merge over the catalog's) and
 * the table FileIO over a fake store and a fake clock: one store per distinct token, one fetch at
 * a time, one more fetch when storage refuses the credentials, and errors that name the table
 * but never a token value. Against a scripted REST server: the token endpoint's path and a
 * failure of it as a clear error.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Readable } from 'node:stream';
import { PaimonError, isPaimonError } from '../../../src/paimon/errors.js';
import type { FileIO, FileStatus } from '../../../src/paimon/fs/file-io.js';
import { RestCatalog } from '../../../src/paimon/catalog/rest-catalog.js';
import {
  DataTokenFileIO,
  TOKEN_EXPIRATION_SAFE_TIME_MILLIS,
  isCredentialRefusal,
  parseTableToken,
  sameToken,
  shouldRefreshToken,
  tokenStorageOptions,
  type DataToken,
} from '../../../src/paimon/catalog/rest/data-token.js';
import { CONFIG_OK, on, startFakeServer, type FakeServer } from './catalog/rest-fake-server.js';

const HOUR = 3_600_000;
const SECRET = 'very-secret-value-4711';

describe('data token rules (RESTTokenFileIO)', () => {
  test("a token is fetched again when it expires within Java's safety margin of one hour", () => {
    assert.equal(TOKEN_EXPIRATION_SAFE_TIME_MILLIS, HOUR);
    const now = 1_000_000_000_000;
    assert.equal(shouldRefreshToken(null, now), true, 'no token yet');
    assert.equal(shouldRefreshToken({ options: {}, expiresAtMillis: now + 2 * HOUR }, now), false);
    assert.equal(shouldRefreshToken({ options: {}, expiresAtMillis: now + HOUR }, now), false, 'exactly the margin left: still good');
    assert.equal(shouldRefreshToken({ options: {}, expiresAtMillis: now + HOUR - 1 }, now), true);
    assert.equal(shouldRefreshToken({ options: {}, expiresAtMillis: now - 1 }, now), true, 'expired');
  });

  test("the token's keys win over the catalog's; dlf.oss-endpoint becomes fs.oss.endpoint; io-cache.enabled travels", () => {
    const catalog = { 's3.endpoint': 'http://cat', 's3.access-key': 'catalog-key', 'dlf.oss-endpoint': 'oss-internal', 'io-cache.enabled': 'false', other: 'kept' };
    const token: DataToken = { options: { 's3.access-key': 'token-key', 'fs.oss.endpoint': 'oss-public', 'io-cache.enabled': 'true' }, expiresAtMillis: 1 };
    assert.deepEqual(tokenStorageOptions(catalog, token), {
      's3.endpoint': 'http://cat',
      's3.access-key': 'token-key',
      'dlf.oss-endpoint': 'oss-internal',
      'fs.oss.endpoint': 'oss-internal',
      'io-cache.enabled': 'false',
      other: 'kept',
    });
    assert.deepEqual(tokenStorageOptions({ 'dlf.oss-endpoint': '' }, { options: { 'fs.oss.endpoint': 'x' }, expiresAtMillis: 1 })['fs.oss.endpoint'], 'x', 'an empty dlf.oss-endpoint changes nothing');
  });

  test('GetTableTokenResponse needs a token map and expiresAtMillis; tokens compare by options and expiry', () => {
    assert.deepEqual(parseTableToken({ token: { a: '1', n: 2 }, expiresAtMillis: 5 }), { options: { a: '1' }, expiresAtMillis: 5 });
    assert.equal(parseTableToken({ token: { a: '1' } }), null);
    assert.equal(parseTableToken({ expiresAtMillis: 5 }), null);
    assert.equal(sameToken({ options: { a: '1' }, expiresAtMillis: 5 }, { options: { a: '1' }, expiresAtMillis: 5 }), true);
    assert.equal(sameToken({ options: { a: '1' }, expiresAtMillis: 5 }, { options: { a: '1' }, expiresAtMillis: 6 }), false);
    assert.equal(sameToken({ options: { a: '1' }, expiresAtMillis: 5 }, { options: { a: '2' }, expiresAtMillis: 5 }), false);
  });

  test('a credential refusal is told from other storage failures', () => {
    assert.equal(isCredentialRefusal(new PaimonError('STORAGE_ERROR', 'read failed for s3://b/k: InvalidAccessKeyId (HTTP 403): no such key')), true);
    assert.equal(isCredentialRefusal(new PaimonError('STORAGE_ERROR', 'read failed for s3://b/k: AccessDenied (HTTP 403): denied')), true);
    assert.equal(isCredentialRefusal(new PaimonError('STORAGE_ERROR', 'read failed for s3://b/k: InternalError (HTTP 500)')), false);
    assert.equal(isCredentialRefusal(new PaimonError('FILE_NOT_FOUND', 'file not found: s3://b/k')), false);
  });
});

/** A store that accepts only the access key it is told to, and records what it was built with. */
class FakeStore implements FileIO {
  readonly isObjectStore = true;
  closed = false;
  constructor(
    readonly options: Record<string, string>,
    private readonly valid: () => ReadonlySet<string>,
  ) {}
  private check(): void {
    const key = this.options['s3.access-key'] ?? '';
    if (!this.valid().has(key)) throw new PaimonError('STORAGE_ERROR', `read failed: InvalidAccessKeyId (HTTP 403): The AWS Access Key Id you provided does not exist`);
  }
  async readFile(): Promise<Buffer> {
    this.check();
    return Buffer.from(this.options['s3.access-key'] ?? '');
  }
  async readRange(): Promise<Buffer> {
    this.check();
    return Buffer.alloc(0);
  }
  async openRead(): Promise<Readable> {
    this.check();
    return Readable.from([]);
  }
  async writeFile(): Promise<void> {
    this.check();
  }
  async tryCreateAtomic(): Promise<boolean> {
    this.check();
    return true;
  }
  async writeStream(_p: string, source: AsyncIterable<Buffer> | Readable): Promise<number> {
    this.check();
    let n = 0;
    for await (const c of source) n += (c as Buffer).length;
    return n;
  }
  async exists(): Promise<boolean> {
    this.check();
    return true;
  }
  async getStatus(): Promise<FileStatus | null> {
    this.check();
    return null;
  }
  async *list(dir: string): AsyncIterable<FileStatus> {
    this.check();
    yield { path: `${dir}/a`, size: 1, modificationTime: 0, isDir: false };
  }
  listRecursive(dir: string): AsyncIterable<FileStatus> {
    return this.list(dir);
  }
  async delete(): Promise<boolean> {
    this.check();
    return true;
  }
  async deleteMany(p: string[]): Promise<number> {
    this.check();
    return p.length;
  }
  async deleteDirectory(): Promise<void> {
    this.check();
  }
  async mkdirs(): Promise<void> {
    this.check();
  }
  async rename(): Promise<boolean> {
    this.check();
    return true;
  }
  async copyFile(): Promise<boolean> {
    this.check();
    return true;
  }
  async close(): Promise<void> {
    this.closed = true;
  }
}

function harness(start: { key: string; expiresIn: number }) {
  let now = 1_000_000_000_000;
  const valid = new Set<string>([start.key]);
  let served: DataToken = { options: { 's3.access-key': start.key, 's3.secret-key': SECRET }, expiresAtMillis: now + start.expiresIn };
  const stores: FakeStore[] = [];
  let fetching = 0;
  let maxConcurrent = 0;
  const io = new DataTokenFileIO({
    table: 'db.t',
    catalogName: 'cat',
    location: 's3://bucket/wh/db.db/t',
    now: () => now,
    catalogOptions: () => ({ 's3.endpoint': 'http://store', 's3.access-key': 'catalog-key' }),
    fetchToken: async () => {
      fetching++;
      maxConcurrent = Math.max(maxConcurrent, fetching);
      await new Promise((r) => setTimeout(r, 5));
      fetching--;
      return served;
    },
    createStore: (_loc, options) => {
      const s = new FakeStore(options, () => valid);
      stores.push(s);
      return s;
    },
  });
  return {
    io,
    stores,
    valid,
    advance: (ms: number) => (now += ms),
    serve: (key: string, expiresIn: number) => {
      served = { options: { 's3.access-key': key, 's3.secret-key': SECRET }, expiresAtMillis: now + expiresIn };
    },
    maxConcurrent: () => maxConcurrent,
  };
}

describe('DataTokenFileIO: the FileIO of a token table', () => {
  test('the first access fetches the token; it is kept until it expires within the margin, then fetched again', async () => {
    const h = harness({ key: 'k1', expiresIn: 3 * HOUR });
    assert.equal(h.io.isObjectStore, true, 'known from the location before any fetch');
    assert.equal(h.io.tokenFetches, 0);
    assert.equal((await h.io.readFile('s3://bucket/wh/db.db/t/x')).toString(), 'k1');
    await h.io.exists('s3://bucket/wh/db.db/t/x');
    assert.equal(h.io.tokenFetches, 1, 'a token valid beyond the margin is reused');
    assert.deepEqual(h.stores[0]!.options, { 's3.endpoint': 'http://store', 's3.access-key': 'k1', 's3.secret-key': SECRET }, "the token's key wins over the catalog's");
    h.valid.add('k2');
    h.serve('k2', 3 * HOUR);
    h.advance(2 * HOUR + 1); // 1 h minus 1 ms left
    assert.equal((await h.io.readFile('s3://bucket/wh/db.db/t/x')).toString(), 'k2');
    assert.equal(h.io.tokenFetches, 2);
    assert.equal(h.stores.length, 2, 'one store per distinct token');
  });

  test('a token that lives less than the margin is fetched at every access (as Java does); the same token keeps its store', async () => {
    const h = harness({ key: 'k1', expiresIn: 10 * 60_000 });
    for (let i = 0; i < 3; i++) await h.io.readFile('s3://bucket/wh/db.db/t/x');
    assert.equal(h.io.tokenFetches, 3);
    assert.equal(h.stores.length, 1, 'an unchanged token (same options and expiry) does not make a new store');
  });

  test('concurrent accesses share one fetch', async () => {
    const h = harness({ key: 'k1', expiresIn: 3 * HOUR });
    await Promise.all(Array.from({ length: 8 }, () => h.io.readFile('s3://bucket/wh/db.db/t/x')));
    assert.equal(h.io.tokenFetches, 1);
    assert.equal(h.maxConcurrent(), 1);
  });

  test('storage refusing the credentials fetches the token once more and runs the operation again on the new one', async () => {
    const h = harness({ key: 'k1', expiresIn: 3 * HOUR });
    await h.io.readFile('s3://bucket/wh/db.db/t/x');
    h.valid.delete('k1'); // revoked at the store before it expired
    h.valid.add('k2');
    h.serve('k2', 3 * HOUR);
    assert.equal((await h.io.readFile('s3://bucket/wh/db.db/t/x')).toString(), 'k2');
    assert.equal(h.io.tokenFetches, 2);
    const listed: string[] = [];
    h.valid.delete('k2');
    h.valid.add('k3');
    h.serve('k3', 3 * HOUR);
    for await (const s of h.io.list('s3://bucket/wh/db.db/t/snapshot')) listed.push(s.path);
    assert.deepEqual(listed, ['s3://bucket/wh/db.db/t/snapshot/a'], 'a listing refused before its first entry is run again');
    assert.equal(h.io.tokenFetches, 3);
  });

  test('a refused token that the server keeps handing out is a clear error naming the table, never the token', async () => {
    const h = harness({ key: 'k1', expiresIn: 3 * HOUR });
    await h.io.readFile('s3://bucket/wh/db.db/t/x');
    h.valid.clear();
    await assert.rejects(h.io.readFile('s3://bucket/wh/db.db/t/x'), (e) => {
      assert.ok(isPaimonError(e, 'STORAGE_ERROR'));
      const m = (e as Error).message;
      assert.match(m, /table db\.t/);
      assert.match(m, /REST catalog 'cat'/);
      assert.match(m, /same token/);
      assert.doesNotMatch(m, new RegExp(SECRET));
      return true;
    });
    assert.equal(h.io.tokenFetches, 2, 'fetched once more, not in a loop');
    h.serve('k9', 3 * HOUR);
    await assert.rejects(h.io.readFile('s3://bucket/wh/db.db/t/x'), /also after fetching the token again/);
  });

  test('a streamed write refused for its credentials is not replayed; the next operation uses the new token', async () => {
    const h = harness({ key: 'k1', expiresIn: 3 * HOUR });
    await h.io.readFile('s3://bucket/wh/db.db/t/x');
    h.valid.delete('k1');
    h.valid.add('k2');
    h.serve('k2', 3 * HOUR);
    await assert.rejects(h.io.writeStream('s3://bucket/wh/db.db/t/data', Readable.from([Buffer.from('abc')])), (e) => isPaimonError(e, 'STORAGE_ERROR'));
    assert.equal(h.io.tokenFetches, 2);
    assert.equal(await h.io.writeStream('s3://bucket/wh/db.db/t/data', Readable.from([Buffer.from('abc')])), 3);
  });

  test('a failing token fetch makes no store; close closes the store of every token it held', async () => {
    let fail = true;
    const stores: FakeStore[] = [];
    let exp = 0;
    const io = new DataTokenFileIO({
      table: 'db.t',
      catalogName: 'cat',
      location: 's3://bucket/t',
      catalogOptions: () => ({}),
      fetchToken: async () => {
        if (fail) throw new PaimonError('STORAGE_ERROR', 'token endpoint down');
        return { options: { 's3.access-key': 'k' }, expiresAtMillis: ++exp };
      },
      createStore: (_l, o) => {
        const s = new FakeStore(o, () => new Set(['k']));
        stores.push(s);
        return s;
      },
    });
    await assert.rejects(io.readFile('s3://bucket/t/x'), /token endpoint down/);
    assert.equal(stores.length, 0);
    fail = false;
    await io.readFile('s3://bucket/t/x');
    await io.readFile('s3://bucket/t/x'); // expired: a new token, a new store
    assert.equal(stores.length, 2);
    await io.close();
    assert.deepEqual(stores.map((s) => s.closed), [true, true]);
  });
});

describe('RestCatalog with data tokens (scripted server)', () => {
  let server: FakeServer;
  let location: string;
  let root: string;
  before(async () => {
    server = await startFakeServer();
    root = await mkdtemp(path.join(process.env.TEST_TMP ?? tmpdir(), 'data-token-'));
    location = path.join(root, 'db.db', 't');
    await mkdir(path.join(location, 'schema'), { recursive: true });
    await writeFile(
      path.join(location, 'schema', 'schema-0'),
      JSON.stringify({ version: 3, id: 0, fields: [{ id: 0, name: 'a', type: 'INT' }], highestFieldId: 0, partitionKeys: [], primaryKeys: [], options: {}, timeMillis: 0 }),
    );
  });
  after(async () => {
    await server.close();
    await rm(root, { recursive: true, force: true });
  });
  const table = (options: Record<string, string>) => on('GET', '/v1/paimon/databases/db/tables/t', () => ({ json: { id: 'u1', name: 't', path: location, schemaId: 0, schema: { options } } }));
  const catalog = () => new RestCatalog('cat', { uri: server.url, warehouse: 'w', tokenProvider: 'bear', token: 'bearer-secret-1234' });
  // The server turns data tokens on in its config overrides, as Paimon's own server does.
  const TOKEN_CONFIG = on('GET', '/v1/config', () => ({ json: { defaults: { prefix: 'paimon' }, overrides: { 'data-token.enabled': 'true' } } }));

  test('a token table is opened with the token of GET .../tables/{t}/token', async () => {
    server.routes = [TOKEN_CONFIG, table({}), on('GET', '/v1/paimon/databases/db/tables/t/token', () => ({ json: { token: { 's3.access-key': SECRET }, expiresAtMillis: Date.now() + 3 * HOUR } }))];
    server.requests.length = 0;
    const c = catalog();
    try {
      const t = await c.getTable('db.t');
      assert.ok(t.fileIO instanceof DataTokenFileIO, 'the table is opened with its own token FileIO');
      assert.equal(server.requests.filter((r) => r.path === '/v1/paimon/databases/db/tables/t/token').length, 1);
      assert.equal((t.fileIO as DataTokenFileIO).tokenFetches, 1);
      assert.equal(await c.fileIO.exists(path.join(location, 'schema', 'schema-0')), true, 'the catalog-wide view reaches the table through it');
    } finally {
      await c.close();
    }
  });

  test('a failing token endpoint is a clear error naming the table and what to check; nothing is opened', async () => {
    server.routes = [TOKEN_CONFIG, table({}), on('GET', '/v1/paimon/databases/db/tables/t/token', () => ({ status: 403, json: { message: `no grant (${SECRET})`, code: 403 } }))];
    const c = catalog();
    try {
      await assert.rejects(c.getTable('db.t'), (e) => {
        assert.ok(isPaimonError(e, 'STORAGE_ERROR'));
        const m = (e as Error).message;
        assert.match(m, /data token of table db\.t/);
        assert.match(m, /data-token\.enabled/);
        assert.doesNotMatch(m, /bearer-secret-1234/);
        return true;
      });
    } finally {
      await c.close();
    }
  });

  test('without data tokens no token is asked for', async () => {
    server.routes = [CONFIG_OK, table({})];
    server.requests.length = 0;
    const c = catalog();
    try {
      const t = await c.getTable('db.t');
      assert.ok(!(t.fileIO instanceof DataTokenFileIO));
      assert.equal(server.requests.filter((r) => r.path.endsWith('/token')).length, 0);
    } finally {
      await c.close();
    }
  });
});
