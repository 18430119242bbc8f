/**
 * Log rotation with `listen.workers` > 1: every worker appends to the audit file, and SIGHUP to
 * the supervising process (the pid logrotate knows) reaches each worker, so that each reopens
 * the file: after `mv audit.jsonl audit.jsonl.1` and one SIGHUP, the records of both workers go
 * to the new file and none to the rotated one, and the proxy keeps serving. Which worker served
 * a connection is read from its id (worker i hands out ids i+1, i+1+count, ...).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { makeWarehouse } from '../unit/router/router-fixtures.js';
import { startChildProxy, tmpDir, type ChildProxy } from './wire-helpers.js';

const WORKERS = 2;

interface Rec {
  connectionId: number | null;
  statement: string | null;
}

function records(file: string): Rec[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Rec);
}

describe('SIGHUP to the supervisor makes every worker reopen its audit file', () => {
  let proxy: ChildProxy;
  let audit: string;
  before(async () => {
    const wh = await makeWarehouse();
    audit = join(tmpDir('sighup-workers'), 'audit.jsonl');
    proxy = await startChildProxy(['--warehouse', wh, '--no-demo', '--workers', String(WORKERS), '--audit-log', audit]);
  });
  after(async () => {
    await proxy?.stop();
  });

  /** One audited CALL from connections until every worker has served one (bounded); returns the workers seen. */
  const callOnEveryWorker = async (marker: string): Promise<Set<number>> => {
    const seen = new Set<number>();
    for (let i = 0; i < 40 && seen.size < WORKERS; i++) {
      const c = await mysql.createConnection({ host: '127.0.0.1', port: proxy.port, user: 'root', password: '' });
      try {
        const [rows] = await c.query('SELECT CONNECTION_ID() AS id');
        const id = Number((rows as { id: number | string }[])[0]!.id);
        // The table does not exist: the CALL is refused, and audited like every CALL.
        await c.query(`CALL paimon.sys.expire_snapshots(table => '${marker}.t${id}')`).catch(() => undefined);
        seen.add((id - 1) % WORKERS);
      } finally {
        await c.end();
      }
    }
    return seen;
  };

  const waitFor = async (what: string, cond: () => boolean): Promise<void> => {
    for (let i = 0; i < 100 && !cond(); i++) await new Promise((r) => setTimeout(r, 100));
    assert.ok(cond(), what);
  };

  test('records of every worker go to the new file after the rotation', { timeout: 120_000 }, async () => {
    assert.equal((await callOnEveryWorker('before')).size, WORKERS, 'both workers served a connection');
    const workersIn = (recs: Rec[], marker: string): Set<number> =>
      new Set(recs.filter((r) => r.statement?.includes(`'${marker}.`)).map((r) => ((r.connectionId ?? 0) - 1) % WORKERS));
    await waitFor('both workers audited before the rotation', () => workersIn(records(audit), 'before').size === WORKERS);

    renameSync(audit, `${audit}.1`);
    process.kill(proxy.pid, 'SIGHUP');
    await waitFor('both workers logged the reopen', () => (proxy.log().match(/SIGHUP: reopening the audit file/g) ?? []).length >= WORKERS);
    assert.equal((await callOnEveryWorker('after')).size, WORKERS, 'both workers still serve after SIGHUP');
    await waitFor('both workers audit into the new file', () => workersIn(records(audit), 'after').size === WORKERS);
    assert.equal(workersIn(records(`${audit}.1`), 'after').size, 0, 'nothing after the rotation went to the rotated file');
    assert.equal(workersIn(records(`${audit}.1`), 'before').size, WORKERS, 'the rotated file keeps what was written before');
  });
});
