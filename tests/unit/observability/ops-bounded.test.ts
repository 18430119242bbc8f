/**
 * What a client controls stays bounded in observability: metric labels of refused CALLs are
 * registered procedure names or `unknown`; the trace's statement attribute is cut like the
 * audit's; snapshot ids in audit facts stay exact beyond 2^53.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { metricProcedureLabel, resultFacts, UNKNOWN_PROCEDURE_LABEL } from '../../../src/observability/ops-hooks.js';
import type { CallOutcome } from '../../../procedures/framework/executor.js';

test('refused CALLs whose procedure the registry never found are counted under one label', () => {
  for (const code of ['PROCEDURE_NOT_FOUND', 'CATALOG_NOT_FOUND', 'PARSE_ERROR', 'MULTI_STATEMENT', 'INTERNAL_ERROR']) {
    assert.equal(metricProcedureLabel(`made_up_${code}`, code), UNKNOWN_PROCEDURE_LABEL, code);
  }
  // A binding error comes after the lookup: the name is a registered one.
  assert.equal(metricProcedureLabel('compact', 'INVALID_ARGUMENT'), 'compact');
});

test('snapshot ids in the facts of a result are exact beyond 2^53, numbers below', () => {
  const outcome = (row: Record<string, unknown>): CallOutcome => ({ ok: true, result: { rows: [row] } }) as unknown as CallOutcome;
  const big = 9223372036854775807n;
  const f = resultFacts(outcome({ pinned_snapshot_id: big, resulting_snapshot_id: '9007199254740993', deleted_files: 3n }));
  assert.equal(f.pinned, big);
  assert.equal(f.resulting, 9007199254740993n, 'a decimal string beyond 2^53 keeps every digit');
  assert.equal(f.deletedFiles, 3);
  const small = resultFacts(outcome({ pinned_snapshot_id: 7n, snapshot_id: 8 }));
  assert.equal(small.pinned, 7);
  assert.equal(small.resulting, 8);
});
