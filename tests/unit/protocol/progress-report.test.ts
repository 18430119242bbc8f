/**
 * MariaDB's progress-report packet (protocol/progress-report.ts), byte for byte as MariaDB's
 * net_send_progress_packet lays it out; the mariadb CLI decoding it is checked in
 * tests/integration/call-progress-packets.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildProgressReport, isProgressReport, MAX_PROGRESS_INFO_BYTES, parseProgressReport } from '../../../protocol/progress-report.js';
import { buildErr } from '../../../protocol/generic-response.js';

test('the packet: ERR header, errno 0xFFFF, one string, stage, max stage, progress in 1/1000 %, lenenc name', () => {
  const p = buildProgressReport({ stage: 2, maxStage: 3, progress: 0.4567, info: 'delete t 10/20' });
  assert.deepEqual(
    p,
    Buffer.concat([Buffer.from([0xff, 0xff, 0xff, 0x01, 0x02, 0x03]), Buffer.from([45670 & 0xff, (45670 >> 8) & 0xff, 45670 >> 16]), Buffer.from([14]), Buffer.from('delete t 10/20')]),
  );
  assert.ok(isProgressReport(p));
  assert.deepEqual(parseProgressReport(p), { stage: 2, maxStage: 3, progress: 0.4567, info: 'delete t 10/20' });
});

test('out-of-range values are clamped: stage >= 1, max stage >= stage, progress within 0..100000', () => {
  assert.deepEqual(parseProgressReport(buildProgressReport({ stage: 0, maxStage: 0, progress: 7, info: '' })), { stage: 1, maxStage: 1, progress: 1, info: '' });
  assert.deepEqual(parseProgressReport(buildProgressReport({ stage: 4, maxStage: 2, progress: -1, info: 'x' })), { stage: 4, maxStage: 4, progress: 0, info: 'x' });
  assert.equal(parseProgressReport(buildProgressReport({ stage: 1, maxStage: 1, progress: Number.NaN, info: '' })).progress, 0);
  assert.equal(parseProgressReport(buildProgressReport({ stage: 999, maxStage: 999, progress: 0, info: '' })).stage, 255);
});

test('a long stage name is cut to what MariaDB sends, never inside a UTF-8 character', () => {
  const info = 'ä'.repeat(200);
  const r = parseProgressReport(buildProgressReport({ stage: 1, maxStage: 1, progress: 0, info }));
  assert.ok(Buffer.byteLength(r.info) <= MAX_PROGRESS_INFO_BYTES);
  assert.equal(r.info, 'ä'.repeat(Math.floor(MAX_PROGRESS_INFO_BYTES / 2)));
});

test('an ordinary ERR packet is not a progress report', () => {
  assert.equal(isProgressReport(buildErr({ errno: 1146, sqlState: '42S02', message: 'no table' })), false);
  assert.equal(isProgressReport(Buffer.from([0xff, 0xff])), false);
});
