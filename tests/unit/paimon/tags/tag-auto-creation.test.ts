/**
 * Automatic tag creation planning (TagAutoCreation / TagPeriodHandler): names per period and
 * formatter, strict parsing of auto-tag names, the first run, resuming after the newest auto tag,
 * skipping expired snapshots, delay, automatic completion, watermarks, num-retained-max.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { isPaimonError } from '../../../../src/paimon/errors.js';
import { autoTagSettings, planAutoTags, tagPeriodHandler, type AutoTagSnapshot } from '../../../../src/paimon/tags/tag-auto-creation.js';

const H = 3_600_000;
const D = 24 * H;
const wall = (s: string) => Date.parse(`${s}Z`);

function state(snaps: AutoTagSnapshot[], tags: { name: string; snapshotId: number }[] = []) {
  const byId = new Map(snaps.map((s) => [s.id, s]));
  return { tags, earliestId: snaps.length ? Math.min(...snaps.map((s) => s.id)) : null, snapshot: async (id: number) => byId.get(id) ?? null };
}

describe('tagPeriodHandler', () => {
  test('names per period and formatter; strict parsing', () => {
    const t = wall('2024-03-05T07:00:00');
    assert.equal(tagPeriodHandler({}).timeToTag(t), '2024-03-05');
    assert.equal(tagPeriodHandler({ 'tag.period-formatter': 'without_dashes' }).timeToTag(t), '20240305');
    assert.equal(tagPeriodHandler({ 'tag.creation-period': 'hourly' }).timeToTag(t), '2024-03-05 07');
    assert.equal(tagPeriodHandler({ 'tag.creation-period': 'hourly', 'tag.period-formatter': 'without_dashes_and_spaces' }).timeToTag(t), '2024030507');
    assert.equal(tagPeriodHandler({ 'tag.creation-period-duration': '15 min' }).timeToTag(t), '202403050700');
    const daily = tagPeriodHandler({});
    assert.equal(daily.tagToTime('2024-03-05'), wall('2024-03-05T00:00:00'));
    assert.equal(daily.tagToTime('2024-03-05 10'), wall('2024-03-05T00:00:00'), 'daily names only count the part before a space');
    assert.equal(daily.tagToTime('2024-02-30'), null);
    assert.equal(daily.tagToTime('tag1'), null);
    assert.equal(tagPeriodHandler({ 'tag.creation-period': 'hourly' }).tagToTime('2024-03-05 24'), null);
  });

  test('settings: none and batch create nothing; a delay of a whole period is refused', () => {
    assert.equal(autoTagSettings({}), null);
    assert.equal(autoTagSettings({ 'tag.automatic-creation': 'batch' }), null);
    assert.throws(() => autoTagSettings({ 'tag.automatic-creation': 'process-time', 'tag.creation-delay': '1 d' }), (e: unknown) => isPaimonError(e, 'INVALID_ARGUMENT'));
  });
});

describe('planAutoTags (TagAutoCreation.run)', () => {
  const base = { 'tag.automatic-creation': 'process-time', 'sink.process-time-zone': 'UTC' };

  test('first run: the period before the first snapshot, then one per passed period', async () => {
    const s = autoTagSettings(base)!;
    const snaps = [
      { id: 1, timeMillis: wall('2024-03-05T10:00:00'), watermark: null },
      { id: 2, timeMillis: wall('2024-03-06T01:00:00'), watermark: null },
      { id: 3, timeMillis: wall('2024-03-07T00:30:00'), watermark: null },
    ];
    const plan = await planAutoTags(s, state(snaps));
    // 1: the day before (03-04; next tag 03-05); 2: 03-06 01:00 is past the end of 03-05, so 03-05;
    // 3: 03-07 00:30 is past the end of 03-06, so 03-06.
    assert.deepEqual(plan.create, [
      { name: '2024-03-04', snapshotId: 1 },
      { name: '2024-03-05', snapshotId: 2 },
      { name: '2024-03-06', snapshotId: 3 },
    ]);
    const again = await planAutoTags(s, state([...snaps, { id: 4, timeMillis: wall('2024-03-07T23:00:00'), watermark: null }], plan.create));
    assert.deepEqual(again.create, [], 'resumed after 2024-03-06: 03-07 has not ended yet');
  });

  test('resumes after the newest auto tag, skips to the earliest snapshot, and num-retained-max drops the oldest', async () => {
    const s = autoTagSettings({ ...base, 'tag.num-retained-max': '2' })!;
    const snaps = [
      { id: 7, timeMillis: wall('2024-03-10T10:00:00'), watermark: null },
      { id: 8, timeMillis: wall('2024-03-12T10:00:00'), watermark: null },
    ];
    const plan = await planAutoTags(s, state(snaps, [
      { name: '2024-03-01', snapshotId: 2 },
      { name: '2024-03-02', snapshotId: 3 },
      { name: 'manual', snapshotId: 4 },
    ]));
    assert.deepEqual(plan.create, [
      { name: '2024-03-09', snapshotId: 7 },
      { name: '2024-03-11', snapshotId: 8 },
    ]);
    assert.deepEqual(plan.drop, ['2024-03-01', '2024-03-02']);
  });

  test('automatic completion fills the skipped periods one per snapshot; delay holds a tag back', async () => {
    const done = autoTagSettings({ ...base, 'tag.automatic-completion': 'true' })!;
    const snaps = [{ id: 5, timeMillis: wall('2024-03-10T10:00:00'), watermark: null }];
    const plan = await planAutoTags(done, state(snaps, [{ name: '2024-03-01', snapshotId: 4 }]));
    assert.deepEqual(plan.create, [{ name: '2024-03-02', snapshotId: 5 }]);
    const delayed = autoTagSettings({ ...base, 'tag.creation-delay': '12 h' })!;
    const early = await planAutoTags(delayed, state([{ id: 5, timeMillis: wall('2024-03-03T10:00:00'), watermark: null }], [{ name: '2024-03-01', snapshotId: 4 }]));
    assert.deepEqual(early.create, [], '03-03 10:00 - 12 h is before 03-03');
  });

  test('watermark mode uses the watermark (UTC by default) and skips snapshots without one', async () => {
    const s = autoTagSettings({ 'tag.automatic-creation': 'watermark', 'tag.creation-period': 'hourly' })!;
    const snaps = [
      { id: 1, timeMillis: wall('2024-03-05T10:00:00'), watermark: -9223372036854775808n },
      { id: 2, timeMillis: wall('2024-03-05T10:00:00'), watermark: BigInt(wall('2024-03-01T05:30:00')) },
    ];
    assert.deepEqual((await planAutoTags(s, state(snaps))).create, [{ name: '2024-03-01 04', snapshotId: 2 }]);
  });
});
