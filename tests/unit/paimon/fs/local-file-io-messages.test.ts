/**
 * Local file-system errors name paths relative to the warehouse (never where it lives on the
 * server), and names longer than the file system allows are INVALID_ARGUMENT before any
 * system call.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile, mkdir, chmod } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { LocalFileIO, MAX_NAME_BYTES } from '../../../../src/paimon/fs/local-file-io.js';
import { createFileIO } from '../../../../src/paimon/fs/file-io-factory.js';
import { isPaimonError, type PaimonErrorCode } from '../../../../src/paimon/errors.js';

describe('LocalFileIO messages', () => {
  let wh: string;
  let io: LocalFileIO;
  before(async () => {
    wh = await mkdtemp(path.join(process.env.TEST_TMP ?? tmpdir(), 'fs-messages-'));
    io = createFileIO(wh) as LocalFileIO;
    await mkdir(path.join(wh, 'db.db', 't', 'snapshot'), { recursive: true });
  });
  after(() => rm(wh, { recursive: true, force: true }));

  const fails = async (what: string, code: PaimonErrorCode, fn: () => Promise<unknown>, expect: RegExp): Promise<void> => {
    await assert.rejects(fn(), (e: unknown) => {
      assert.ok(isPaimonError(e, code), `${what}: ${String(e)}`);
      const m = (e as Error).message;
      assert.ok(!m.includes(wh), `${what}: the message names the server path: ${m}`);
      assert.match(m, expect, what);
      return true;
    });
  };

  test('a missing file is named relative to the warehouse, in both spellings of the path', async () => {
    await fails('readFile', 'FILE_NOT_FOUND', () => io.readFile(path.join(wh, 'db.db/t/snapshot/snapshot-9')), /file not found: db\.db\/t\/snapshot\/snapshot-9$/);
    await fails('readFile file:', 'FILE_NOT_FOUND', () => io.readFile(`file://${wh}/db.db/t/snapshot/snapshot-9`), /file not found: db\.db\/t\/snapshot\/snapshot-9$/);
    await fails('rename', 'FILE_NOT_FOUND', () => io.rename(path.join(wh, 'db.db/t/nope'), path.join(wh, 'db.db/t/other')), /db\.db\/t\/nope -> db\.db\/t\/other/);
  });

  test(`a table name over ${MAX_NAME_BYTES} bytes is INVALID_ARGUMENT naming the limit, before the disk is touched`, async () => {
    for (const name of ['t'.repeat(MAX_NAME_BYTES + 1), 'é'.repeat(128), 'x'.repeat(5000)]) {
      const p = path.join(wh, 'db.db', name, 'snapshot', 'LATEST');
      for (const [op, fn] of [
        ['exists', () => io.exists(p)],
        ['getStatus', () => io.getStatus(p)],
        ['readFile', () => io.readFile(p)],
        ['writeFile', () => io.writeFile(p, 'x')],
        ['mkdirs', () => io.mkdirs(path.dirname(p))],
      ] as const) {
        await fails(`${op} ${name.length}`, 'INVALID_ARGUMENT', fn, /longer than the file system allows \((255 bytes per name|4095 bytes)\)/);
      }
    }
    // Exactly 255 bytes is a valid name: simply absent.
    assert.equal(await io.exists(path.join(wh, 'db.db', 't'.repeat(MAX_NAME_BYTES))), false);
  });

  test('other system errors carry only their code, not the system message with its absolute path', async () => {
    if (process.getuid?.() === 0) return; // root reads everything: no EACCES to provoke
    const locked = path.join(wh, 'db.db', 'locked');
    await mkdir(locked);
    await writeFile(path.join(locked, 'f'), 'x');
    await chmod(locked, 0o000);
    try {
      await fails('readFile EACCES', 'STORAGE_ERROR', () => io.readFile(path.join(locked, 'f')), /^read failed for db\.db\/locked\/f: EACCES$/);
    } finally {
      await chmod(locked, 0o755);
    }
  });

  test('paths outside the warehouse are named by their last component only; without a root nothing changes', async () => {
    await fails('outside', 'FILE_NOT_FOUND', () => io.readFile('/definitely/not/here/secret-dir/file-1'), /<outside the warehouse>\/file-1$/);
    await assert.rejects(new LocalFileIO().readFile(path.join(wh, 'absent')), (e: unknown) => (e as Error).message.includes(wh));
  });
});
