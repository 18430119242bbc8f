import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { FeRefresher, changedTables, refreshStatement } from '../../src/fe-refresh.js';
import { mariadbEnv, testSecret, readFrom } from './ops-env.js';

/** What MariaDB's general query log received after `offset` bytes. */
function generalLogSince(offset: number): string {
  const env = mariadbEnv();
  assert.ok(env.generalLog, 'MARIADB_GENERAL_LOG is not set');
  return readFrom(env.generalLog, offset);
}

async function waitForLog(offset: number, needle: string): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const text = generalLogSince(offset);
    if (text.includes(needle)) return text;
    await new Promise((r) => setTimeout(r, 50));
  }
  return generalLogSince(offset);
}

test('REFRESH TABLE <catalog>.<db>.<table> reaches the FE on the proxy\'s own connection; its failure is a warning', async () => {
  const env = mariadbEnv();
  const offset = statSync(env.generalLog).size;
  const refresher = new FeRefresher({ host: env.host, port: env.port, user: env.user, password: env.password });
  after(() => refresher.close());
  // A branch and a tag change of one table, and another table: two statements.
  const tag = `t_${Date.now()}`;
  const warnings = await refresher.refresh('paimon', [`sales.orders_${tag}`, `sales.orders_${tag}$branch_b1`, 'web.events']);
  const log = await waitForLog(offset, 'web`.`events`');
  const expected = refreshStatement('paimon', 'sales', `orders_${tag}`);
  assert.equal(expected, `REFRESH TABLE \`paimon\`.\`sales\`.\`orders_${tag}\``);
  assert.ok(log.includes(expected), `general log did not receive ${expected}:\n${log.slice(-2000)}`);
  assert.ok(log.includes('REFRESH TABLE `paimon`.`web`.`events`'));
  assert.equal(log.split(expected).length - 1, 1, 'the branch change must not refresh the table twice');
  // The statement came from the configured account, on its own connection.
  const connectLine = log.split('\n').find((l) => /Connect\s/.test(l) && l.includes(`${env.user}@`));
  assert.ok(connectLine, 'no Connect of the refresh account in the general log');
  // MariaDB does not know Doris's REFRESH TABLE: exactly the failure path, as warnings.
  assert.equal(warnings.length, 2);
  for (const w of warnings) {
    assert.equal(w.level, 'Warning');
    assert.match(w.message, /committed/);
    assert.match(w.message, /ERROR 1064/);
  }
});

test('an unreachable FE gives a warning, a missing refresh account a note, no change nothing', async () => {
  const secret = testSecret('refresh');
  const down = new FeRefresher({ host: '127.0.0.1', port: 1, user: 'refresher', password: secret, connectTimeoutMs: 500 });
  const w = await down.refresh('paimon', ['sales.orders']);
  await down.close();
  assert.equal(w.length, 1);
  assert.equal(w[0]!.level, 'Warning');
  assert.ok(!w[0]!.message.includes(secret));
  const unconfigured = new FeRefresher({ host: '127.0.0.1', port: 1 });
  const n = await unconfigured.refresh('paimon', ['sales.orders']);
  assert.equal(n.length, 1);
  assert.equal(n[0]!.level, 'Note');
  assert.match(n[0]!.message, /refresh_user/);
  assert.deepEqual(await unconfigured.refresh('paimon', []), []);
});

test('changedTables reduces affected objects to base tables', () => {
  assert.deepEqual(changedTables(['a.t', 'a.t$branch_x', 'b.u$tags', 'nodb', 'c.*']), [{ database: 'a', table: 't' }, { database: 'b', table: 'u' }]);
  assert.equal(refreshStatement('p', 'we`ird', 't'), 'REFRESH TABLE `p`.`we``ird`.`t`');
});
