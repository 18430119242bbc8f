/**
 * The moto S3 server for tests: uses the one tests/run.sh started (S3_ENDPOINT), or starts one
 * from the venv that tests/setup/moto.sh installs when a test file is run on its own.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { S3FileIO } from '../../../../src/paimon/fs/s3-file-io.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

export interface S3Peer {
  endpoint: string;
  accessKey: string;
  secretKey: string;
  region: string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

export async function startS3Peer(): Promise<S3Peer> {
  if (process.env.S3_ENDPOINT) {
    return {
      endpoint: process.env.S3_ENDPOINT,
      accessKey: process.env.S3_ACCESS_KEY ?? 'test',
      secretKey: process.env.S3_SECRET_KEY ?? 'test',
      region: process.env.S3_REGION ?? 'us-east-1',
      stop: async () => {},
    };
  }
  const bin = path.join(ROOT, 'tests/setup/.venv-moto/bin/moto_server');
  if (!existsSync(bin)) {
    throw new Error(
      'S3 peer unavailable: set S3_ENDPOINT or install moto (bash -c "ROOT=$PWD; source tests/setup/moto.sh; moto_install")',
    );
  }
  const port = await freePort();
  const child: ChildProcess = spawn(bin, ['-H', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
  const endpoint = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    try {
      const r = await fetch(`${endpoint}/moto-api/`);
      await r.arrayBuffer();
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    endpoint,
    accessKey: 'moto-test-access',
    secretKey: 'moto-test-secret',
    region: 'us-east-1',
    stop: async () => {
      if (child.exitCode === null) {
        const done = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await done;
      }
    },
  };
}

export function s3FileIO(peer: S3Peer): S3FileIO {
  return new S3FileIO({
    endpoint: peer.endpoint,
    region: peer.region,
    accessKeyId: peer.accessKey,
    secretAccessKey: peer.secretKey,
    forcePathStyle: true,
  });
}

export async function createBucket(peer: S3Peer, bucket: string): Promise<void> {
  const c = new S3Client({
    endpoint: peer.endpoint,
    region: peer.region,
    forcePathStyle: true,
    credentials: { accessKeyId: peer.accessKey, secretAccessKey: peer.secretKey },
  });
  try {
    await c.send(new CreateBucketCommand({ Bucket: bucket }));
  } catch (e) {
    // Test files share one moto server; a bucket made by an earlier run or file is fine.
    const n = (e as { name?: string }).name;
    if (n !== 'BucketAlreadyOwnedByYou' && n !== 'BucketAlreadyExists') throw e;
  } finally {
    c.destroy();
  }
}
