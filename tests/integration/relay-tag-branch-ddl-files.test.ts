/**
 * CALL against DDL on a table written by Paimon Java 2.0.0, with the real tag and branch
 * procedures, in a relayed session (MariaDB upstream): the same history is copied into two
 * catalogs; `paimon` gets the CALLs, `lake` the ALTER TABLE statements Doris accepts for
 * Iceberg tables. Both copies must end with the same files, tag files equal up to their
 * creation time and branch schemas up to theirs, and Paimon Java's check must pass on the
 * DDL copy.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect, proxyConfig, type Conn } from './wire-helpers.js';
import { startProxy, type RunningProxy } from '../../src/proxy-app.js';
import { silentLogger } from '../../src/observability/logger.js';
import { HISTORY_TABLE, copyWarehouse, historyWarehouse, javaCheckPasses, listTree, tempDir } from '../interop/procedures-support.js';

const V = '2.0.0' as const;

/** A metadata file's JSON without the fields that record when it was written. */
function withoutTimes(path: string): unknown {
  const j = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  delete j.tagCreateTime;
  delete j.timeMillis;
  return j;
}

describe('CALL and ALTER TABLE tag/branch DDL leave the same files', () => {
  let callWh: string;
  let ddlWh: string;
  let proxy: RunningProxy;
  let c: Conn;

  before(async () => {
    const origin = await historyWarehouse(V, 'ddl-files');
    const dir = tempDir('ddl-files-');
    callWh = join(dir, 'call');
    ddlWh = join(dir, 'ddl');
    copyWarehouse(origin, callWh);
    copyWarehouse(origin, ddlWh);
    const config = proxyConfig({
      catalogs: [{ name: 'paimon', type: 'filesystem', warehouse: callWh }, { name: 'lake', type: 'filesystem', warehouse: ddlWh }],
      audit: { file: join(dir, 'audit.jsonl') },
      jobs: { dir },
      security: { check_privileges: false },
    });
    proxy = await startProxy(config, { logger: silentLogger() });
    c = await connect(proxy.address.port);
  });
  after(async () => {
    await c?.end();
    await proxy?.close();
  });

  test('tags and branches: CALL in one catalog, DDL in the other', async () => {
    const pairs: [string, string][] = [
      ["CALL paimon.sys.create_tag(table => 'interop.t', tag => 'd1', snapshot_id => 5, time_retained => '2 d')", 'ALTER TABLE lake.interop.t CREATE TAG d1 AS OF VERSION 5 RETAIN 2 DAYS'],
      ["CALL paimon.sys.replace_tag(table => 'interop.t', tag => 'd1', snapshot_id => 7)", 'ALTER TABLE lake.interop.t CREATE OR REPLACE TAG d1 AS OF VERSION 7'],
      ["CALL paimon.sys.create_tag(table => 'interop.t', tag => 'd2', time_retained => '3 h')", 'ALTER TABLE lake.interop.t CREATE OR REPLACE TAG d2 RETAIN 3 HOURS'],
      ["CALL paimon.sys.create_tag(table => 'interop.t', tag => 'd3', snapshot_id => 2)", 'ALTER TABLE lake.interop.t CREATE TAG IF NOT EXISTS d3 AS OF VERSION 2'],
      ["CALL paimon.sys.delete_tag(table => 'interop.t', tag => 'd3')", 'ALTER TABLE lake.interop.t DROP TAG d3'],
      ["CALL paimon.sys.delete_tag(table => 'interop.t', tag => 'nope', if_exists => true)", 'ALTER TABLE lake.interop.t DROP TAG IF EXISTS nope'],
      ["CALL paimon.sys.create_branch(table => 'interop.t', branch => 'b1')", 'ALTER TABLE lake.interop.t CREATE BRANCH b1'],
      ["CALL paimon.sys.create_branch(table => 'interop.t', branch => 'b2')", 'ALTER TABLE lake.interop.t CREATE BRANCH IF NOT EXISTS b2'],
      ["CALL paimon.sys.delete_branch(table => 'interop.t', branch => 'b2')", 'ALTER TABLE lake.interop.t DROP BRANCH b2'],
    ];
    for (const [call, ddl] of pairs) {
      await c.query(call);
      const [r] = await c.query(ddl);
      assert.ok(!Array.isArray(r), `${ddl}: an OK, not a result set`);
    }
    // an existing tag: CREATE fails as create_tag does, IF NOT EXISTS is OK and changes nothing
    await assert.rejects(c.query('ALTER TABLE lake.interop.t CREATE TAG d1'), /already exists/);
    await c.query('ALTER TABLE lake.interop.t CREATE TAG IF NOT EXISTS d1 AS OF VERSION 1');
    await c.query('ALTER TABLE lake.interop.t CREATE BRANCH IF NOT EXISTS b1');

    const table = (wh: string) => join(wh, HISTORY_TABLE);
    const files = listTree(table(ddlWh));
    assert.deepEqual(files, listTree(table(callWh)), 'the same files');
    const meta = files.filter((f) => f.startsWith('tag/') || /^branch\/[^/]+\/schema\//.test(f));
    assert.ok(meta.includes('tag/tag-d1') && meta.includes('tag/tag-d2') && !meta.includes('tag/tag-d3'), meta.join(', '));
    assert.ok(meta.some((f) => f.startsWith('branch/branch-b1/schema/')) && !files.some((f) => f.startsWith('branch/branch-b2')), files.join(', '));
    for (const f of meta) assert.deepEqual(withoutTimes(join(table(ddlWh), f)), withoutTimes(join(table(callWh), f)), f);
    const d1 = JSON.parse(readFileSync(join(table(ddlWh), 'tag/tag-d1'), 'utf8')) as { id: number };
    assert.equal(d1.id, 7, 'CREATE OR REPLACE moved the tag');
    assert.equal(await javaCheckPasses(V, ddlWh), true, 'Paimon Java checks the DDL copy');
  });
});
