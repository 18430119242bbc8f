/**
 * What S3FileIO's errors say: the object as `s3://bucket/key`, never a configured secret, never
 * the endpoint URL (it may carry `user:password@`), never an absolute path of the server.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { S3FileIO, scrubStorageMessage } from '../../../../src/paimon/fs/s3-file-io.js';

const SECRETS = ['AKIAEXAMPLEKEY', 'sekrit-value', 'pa55word'];

function assertClean(message: string): void {
  for (const s of SECRETS) assert.ok(!message.includes(s), `${s} in: ${message}`);
  assert.ok(!/https?:\/\//.test(message), `an endpoint URL in: ${message}`);
  assert.ok(!message.includes('/root/') && !message.includes('/etc/'), `a server path in: ${message}`);
}

describe('S3FileIO error messages', () => {
  test('store and SDK messages: secrets, endpoint URLs and local paths are replaced; s3 URIs stay', () => {
    const m = scrubStorageMessage(
      "Unexpected response from http://user:pa55word@minio.internal:9000/bucket/k (key AKIAEXAMPLEKEY, secret sekrit-value); could not read /root/.aws/credentials; object s3://bucket/wh/db.db/t/snapshot/snapshot-1 and s3a://u:p@bucket/x",
      SECRETS,
    );
    assertClean(m);
    assert.match(m, /<endpoint>/);
    assert.match(m, /<local path>\/credentials/);
    assert.match(m, /s3:\/\/bucket\/wh\/db\.db\/t\/snapshot\/snapshot-1/);
    assert.match(m, /s3a:\/\/bucket\/x/, 'userinfo is dropped from an object URI too');
  });

  test('a failing request names the object as s3://bucket/key and nothing of the endpoint or credentials', async () => {
    // Port 1 on loopback refuses at once; one attempt.
    const io = new S3FileIO({ endpoint: 'http://user:pa55word@127.0.0.1:1', accessKeyId: 'AKIAEXAMPLEKEY', secretAccessKey: 'sekrit-value', forcePathStyle: true, maxAttempts: 1 });
    try {
      for (const op of [() => io.readFile('s3://bucket/wh/db.db/t/snapshot/snapshot-1'), () => io.writeFile('s3://bucket/wh/db.db/t/x', 'x'), () => io.delete('s3://bucket/wh/db.db/t/x')]) {
        await assert.rejects(op(), (e: unknown) => {
          const m = (e as Error).message;
          assertClean(m);
          assert.match(m, /s3:\/\/bucket\/wh\/db\.db\/t\//, m);
          return true;
        });
      }
    } finally {
      await io.close();
    }
  });

  test('a local path given to S3FileIO is named by its last component only', async () => {
    const io = new S3FileIO({ maxAttempts: 1 });
    try {
      await assert.rejects(io.readFile('/root/warehouse/db.db/t/snapshot/LATEST'), (e: unknown) => {
        const m = (e as Error).message;
        assertClean(m);
        assert.ok(!m.includes('/root/warehouse'), m);
        assert.match(m, /<local path>\/LATEST/);
        return true;
      });
    } finally {
      await io.close();
    }
  });
});
