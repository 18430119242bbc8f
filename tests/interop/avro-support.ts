/**
 * Support for the Avro/BinaryRow/manifest interop tests: runs Paimon Java's reference tool
 * (tests/interop/java/PaimonTool.java, compiled into lib-classes-<version>/ by the Java setup) and
 * converts its canonical JSON values into our BinaryRow values.
 */
import { tempDir } from '../support/temp-dir.js';
import { execFile } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import assert from 'node:assert/strict';
import { JsonDecimal, isJsonObject, parseJson, type JsonObject, type JsonValue } from '../../src/paimon/spec/json.js';
import type { SimpleStats } from '../../src/paimon/spec/simple-stats.js';
import type { ManifestEntry } from '../../src/paimon/spec/manifest-entry.js';
import { Decimal, Timestamp, type BinaryFieldType, type BinaryValue } from '../../src/paimon/spec/binary-row.js';

const run = promisify(execFile);
const JAVA_DIR = resolve(import.meta.dirname, 'java');

export const VERSIONS = ['1.4.2', '2.0.0'] as const;
export type Version = (typeof VERSIONS)[number];

/** Fails (not skips) when the Java peer is missing: tests/setup installs it. */
export function requireJava(version: Version): void {
  if (!existsSync(join(JAVA_DIR, `lib-classes-${version}`, 'PaimonTool.class'))) {
    throw new Error(`Paimon Java ${version} tool is not built (tests/interop/java/lib-classes-${version}); run the Java setup first`);
  }
}

/** Runs one PaimonTool command; returns its stdout lines. */
export async function paimonTool(version: Version, ...args: string[]): Promise<string[]> {
  requireJava(version);
  const cp = `${join(JAVA_DIR, `lib-classes-${version}`)}:${join(JAVA_DIR, `lib-${version}`, '*')}`;
  try {
    const { stdout } = await run('java', ['-cp', cp, 'PaimonTool', ...args], { maxBuffer: 256 * 1024 * 1024, timeout: 300_000 });
    return stdout.trim().split('\n').filter((l) => l.length > 0);
  } catch (e) {
    const err = e as { stderr?: string; message: string };
    const tail = (err.stderr ?? '').split('\n').filter((l) => /Exception|Error|error/.test(l)).slice(0, 6);
    throw new Error(`PaimonTool ${args.join(' ')} failed: ${tail.join(' | ') || err.message}`);
  }
}

/** Runs a PaimonTool command whose last line is JSON. */
export async function paimonToolJson(version: Version, ...args: string[]): Promise<JsonValue> {
  const lines = await paimonTool(version, ...args);
  // Either one JSON document (possibly pretty-printed) or log lines followed by one JSON line.
  const start = lines.findIndex((l) => l.startsWith('{') || l.startsWith('['));
  const whole = start >= 0 ? lines.slice(start).join('\n') : 'null';
  try {
    return parseJson(whole, `PaimonTool ${args[0]}`);
  } catch {
    return parseJson(lines[lines.length - 1] ?? 'null', `PaimonTool ${args[0]}`);
  }
}

/** Many PaimonTool commands in one JVM (`batch`); returns each step's JSON output, in order. */
export async function paimonToolBatch(version: Version, steps: string[][]): Promise<JsonValue[]> {
  const f = join(tempDir('batch-'), 'steps.json');
  writeFileSync(f, JSON.stringify(steps));
  const out = obj(await paimonToolJson(version, 'batch', f));
  return arr(out.results).map((r, i) => {
    const res = obj(r);
    if (res.ok !== true) throw new Error(`PaimonTool batch step ${steps[i].join(' ')} failed: ${String(res.error)}`);
    const text = String(res.stdout).trim();
    return parseJson(text, `PaimonTool ${steps[i][0]}`);
  });
}

export { tempDir };

function num(v: JsonValue): number {
  if (typeof v === 'number') return v;
  if (v instanceof JsonDecimal) return v.toNumber();
  if (typeof v === 'string') return Number(v);
  throw new Error(`not a number: ${String(v)}`);
}

function utcMillisOfLocal(text: string): { millis: bigint; nanoOfMilli: number } {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?Z?$/.exec(text);
  if (!m) throw new Error(`not a local date-time: ${text}`);
  const frac = (m[5] ?? '').padEnd(9, '0');
  const base = Date.parse(`${m[1]}T${m[2]}:${m[3]}:${m[4] ?? '00'}Z`);
  return { millis: BigInt(base) + BigInt(Number(frac.slice(0, 3))), nanoOfMilli: Number(frac.slice(3)) };
}

/** PaimonTool's canonical JSON value of a field -> our BinaryRow value. */
export function canonicalToValue(type: BinaryFieldType, v: JsonValue): BinaryValue {
  if (v === null) return null;
  switch (type.root) {
    case 'BOOLEAN':
      return v as boolean;
    case 'TINYINT':
    case 'SMALLINT':
    case 'INT':
      return num(v);
    case 'BIGINT':
      return typeof v === 'bigint' ? v : BigInt(v as number);
    case 'FLOAT':
      return Math.fround(num(v));
    case 'DOUBLE':
      return num(v);
    case 'DECIMAL':
      return Decimal.fromString(String(v), type.precision ?? 10, type.scale ?? 0);
    case 'CHAR':
    case 'VARCHAR':
      return v as string;
    case 'BINARY':
    case 'VARBINARY':
      return new Uint8Array(Buffer.from(v as string, 'hex'));
    case 'DATE':
      return Math.round(Date.parse(`${v as string}T00:00:00Z`) / 86_400_000);
    case 'TIME': {
      const [h, mi, s] = (v as string).split(':');
      return (Number(h) * 3600 + Number(mi) * 60) * 1000 + Math.round(Number(s) * 1000);
    }
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ': {
      const t = utcMillisOfLocal(v as string);
      return new Timestamp(t.millis, t.nanoOfMilli);
    }
  }
}

/** Our value -> the canonical JSON text PaimonTool prints (for comparisons in messages). */
export function valueToCanonical(type: BinaryFieldType, v: BinaryValue): unknown {
  if (v === null) return null;
  if (v instanceof Decimal) return v.toString();
  if (v instanceof Uint8Array) return Buffer.from(v).toString('hex');
  if (v instanceof Timestamp) {
    const iso = new Date(Number(v.millisecond)).toISOString().slice(0, 19);
    const ms = Number(((v.millisecond % 1000n) + 1000n) % 1000n);
    const frac = String(ms).padStart(3, '0') + String(v.nanoOfMillisecond).padStart(6, '0');
    return `${iso}.${frac}${type.root === 'TIMESTAMP_LTZ' ? 'Z' : ''}`;
  }
  return v;
}

export const obj = (v: JsonValue | undefined): JsonObject => {
  assert.ok(v !== undefined && isJsonObject(v), 'expected a JSON object');
  return v;
};
export const arr = (v: JsonValue | undefined): JsonValue[] => {
  assert.ok(Array.isArray(v), 'expected a JSON array');
  return v;
};
export const big = (v: JsonValue | undefined): bigint | null => (v === null || v === undefined ? null : BigInt(v as number | bigint));


export function assertStats(ours: SimpleStats, java: JsonObject, what: string): void {
  assert.equal(ours.minValues.serialize().toString('hex'), obj(java.minValues).serializedHex, `${what} min`);
  assert.equal(ours.maxValues.serialize().toString('hex'), obj(java.maxValues).serializedHex, `${what} max`);
  assert.deepEqual(ours.nullCounts, arr(java.nullCounts).map(big), `${what} null counts`);
}

export function assertEntry(e: ManifestEntry, j: JsonObject): void {
  const f = obj(j.file);
  const name = String(f.fileName);
  assert.equal(e.kind, j.kind);
  assert.equal(e.partition.serialize().toString('hex'), obj(j.partition).serializedHex, `${name} partition`);
  assert.equal(e.bucket, j.bucket);
  assert.equal(e.totalBuckets, j.totalBuckets);
  assert.equal(e.file.fileName, name);
  assert.equal(e.file.fileSize, big(f.fileSize));
  assert.equal(e.file.rowCount, big(f.rowCount));
  assert.equal(e.file.minKey.serialize().toString('hex'), obj(f.minKey).serializedHex, `${name} minKey`);
  assert.equal(e.file.maxKey.serialize().toString('hex'), obj(f.maxKey).serializedHex, `${name} maxKey`);
  assertStats(e.file.keyStats, obj(f.keyStats), `${name} key stats`);
  assertStats(e.file.valueStats, obj(f.valueStats), `${name} value stats`);
  assert.equal(e.file.minSequenceNumber, big(f.minSequenceNumber));
  assert.equal(e.file.maxSequenceNumber, big(f.maxSequenceNumber));
  assert.equal(e.file.schemaId, big(f.schemaId));
  assert.equal(e.file.level, f.level);
  assert.deepEqual(e.file.extraFiles, f.extraFiles);
  assert.ok(e.file.creationTime === null || typeof e.file.creationTime === 'bigint', 'creation time is a bigint');
  // Java prints the local wall clock; we hold it as "local taken as UTC" epoch millis.
  const ct = e.file.creationTime === null ? null : new Date(Number(e.file.creationTime)).toISOString().slice(0, 23);
  assert.equal(ct, f.creationTime === null ? null : String(f.creationTime).slice(0, 23));
  assert.equal(e.file.deleteRowCount, big(f.deleteRowCount));
  assert.equal(e.file.embeddedIndex === null ? null : e.file.embeddedIndex.toString('hex'), f.embeddedIndex);
  assert.equal(e.file.fileSource, f.fileSourceValue === null ? null : Number(f.fileSourceValue));
  assert.deepEqual(e.file.valueStatsCols, f.valueStatsCols);
  assert.equal(e.file.externalPath, f.externalPath);
  assert.equal(e.file.firstRowId, big(f.firstRowId));
  assert.deepEqual(e.file.writeCols, f.writeCols);
}

