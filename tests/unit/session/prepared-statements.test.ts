/**
 * Prepared statements the proxy answers itself, through a standalone proxy in this process
 * (no peers): the placeholder limit of COM_STMT_PREPARE_OK's two-byte parameter count.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import mysql from 'mysql2/promise';
import { MAX_PREPARED_PARAMS, prepareOkPayloads } from '../../../protocol/prepared-statement.js';
import { startStandaloneProxy, type StandaloneProxy } from '../../support/standalone-proxy.js';

function callWith(placeholders: number): string {
  return `CALL paimon.sys.test_echo(${Array.from({ length: placeholders }, () => '?').join(',')})`;
}

describe('prepared statements the proxy answers', () => {
  let sp: StandaloneProxy;
  before(async () => {
    sp = await startStandaloneProxy({ testRouter: true });
  });
  after(async () => {
    await sp?.close();
  });

  test('more than 65,535 placeholders are refused with ER_PS_MANY_PARAM, as MySQL does; 65,535 prepare', async () => {
    const c = await mysql.createConnection({ host: '127.0.0.1', port: sp.port, user: 'root', password: '' });
    try {
      await assert.rejects(c.prepare(callWith(MAX_PREPARED_PARAMS + 1)), (e: { errno?: number; sqlState?: string; sqlMessage?: string }) => {
        assert.deepEqual([e.errno, e.sqlState, e.sqlMessage], [1390, 'HY000', 'Prepared statement contains too many placeholders']);
        return true;
      });
      // The connection stays in step: the next statement gets its own answer.
      await c.ping();
      const stmt = await c.prepare(callWith(MAX_PREPARED_PARAMS));
      // mysql2 keeps the parameter definitions of the PREPARE OK on the statement it wraps.
      const info = stmt as unknown as { statement: { parameters: unknown[] } };
      assert.equal(info.statement.parameters.length, MAX_PREPARED_PARAMS);
      stmt.close();
      await c.ping();
    } finally {
      await c.end();
    }
  });

  test('COM_STMT_PREPARE_OK cannot count more than 65,535 parameters', () => {
    assert.equal(prepareOkPayloads(1, MAX_PREPARED_PARAMS, [], 0, 0)[0]!.readUInt16LE(7), 0xffff);
    assert.throws(() => prepareOkPayloads(1, MAX_PREPARED_PARAMS + 1, [], 0, 0), RangeError);
  });
});
