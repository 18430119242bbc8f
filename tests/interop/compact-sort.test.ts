/**
 * Sort compaction (compact with order_strategy order / zorder / hilbert) against the real Paimon
 * (Java 1.4.2 / 2.0.0 and pypaimon):
 *  - our sort keys equal the bytes of Paimon Java's own ZIndexer and HilbertIndexer
 *    (tests/interop/java/SortKeyTool.java) for rows of every supported type, NULLs and edge
 *    values included;
 *  - an unaware-bucket append table written by Paimon Java in many commits (partitioned; int,
 *    bigint, string, double, date columns with NULLs), sort-compacted by our procedure: Java 1.4,
 *    2.0 and pypaimon read the same multiset of rows; the new snapshot is an OVERWRITE of the
 *    selected partitions only (every old file of those partitions deleted, the others untouched);
 *    in every new file the rows are in the order of Java's own indexer (SortKeyTool check: keys
 *    non-decreasing in file order; for 'order' the ascending NULLS FIRST record order), which the
 *    table written by Java did NOT satisfy before; a Java writer keeps writing and compacting.
 */
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { java, pypaimon, tempWarehouse, copyWarehouse, parseJson, PAIMON_JAVA_VERSIONS, type Json, type JsonObj, type PaimonJavaVersion, type TableSpec } from './peers.js';
import { executorFor, callNamed, firstRow } from './procedures-support.js';
import { compact } from '../../procedures/compact.js';
import { closeDataEngine } from '../../src/paimon/data/duckdb-engine.js';
import { parseDataField } from '../../src/paimon/data/field-type.js';
import { Decimal, Timestamp, type InternalRow } from '../../src/paimon/data/internal-row.js';
import { zorderEncoder, hilbertEncoder } from '../../src/paimon/compact/sort-key.js';

after(async () => {
  await closeDataEngine();
});

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const js = (x: unknown): string => JSON.stringify(x, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
const canon = (rows: JsonObj[]): string[] => rows.map((r) => JSON.stringify(r, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))).sort();

/** Deterministic PRNG (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// ------------------------------------------------------------------------------------------------
// 1. sort keys, byte for byte against ZIndexer / HilbertIndexer
// ------------------------------------------------------------------------------------------------

const KEY_FIELDS = [
  { name: 'i', type: 'INT' },
  { name: 'l', type: 'BIGINT' },
  { name: 's', type: 'STRING' },
  { name: 'd', type: 'DOUBLE' },
  { name: 'f', type: 'FLOAT' },
  { name: 'dt', type: 'DATE' },
  { name: 'b', type: 'BOOLEAN' },
  { name: 'dec', type: 'DECIMAL(10, 2)' },
  { name: 'dec2', type: 'DECIMAL(30, 4)' },
  { name: 'ts', type: 'TIMESTAMP(3)' },
  { name: 'ti', type: 'TINYINT' },
  { name: 'si', type: 'SMALLINT' },
  { name: 'bin', type: 'BYTES' },
] as const;
const KEY_SPECS = KEY_FIELDS.map((f, i) => parseDataField({ id: i, name: f.name, type: f.type }));

const pad = (n: number, w = 2): string => String(n).padStart(w, '0');
function dateString(days: number): string {
  const d = new Date(days * 86400000);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
}
function tsString(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${pad(d.getUTCMilliseconds(), 3)}`;
}
function decString(u: bigint, scale: number): string {
  const neg = u < 0n;
  const s = (neg ? -u : u).toString().padStart(scale + 1, '0');
  return `${neg ? '-' : ''}${s.slice(0, s.length - scale)}.${s.slice(s.length - scale)}`;
}

/** One random row as both our InternalRow and the JSON PaimonTool.rowFromJson reads. */
function keyRows(n: number, seed: number): { rows: InternalRow[]; json: Record<string, Json>[] } {
  const r = rng(seed);
  const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  const rows: InternalRow[] = [];
  const json: Record<string, Json>[] = [];
  const strings = ['', 'a', 'ab', 'abcdefgh', 'abcdefghi', 'zz', 'é', '日本語テキスト', 'a\u0000b', 'x'.repeat(20), 'Z'];
  const doubles = [0, -0, 1.5, -1.5, Number.NaN, Infinity, -Infinity, 1e300, -1e-300, 3.14159, -2.25, 5e-324];
  for (let k = 0; k < n; k++) {
    const nul = (): boolean => r() < 0.12;
    const i = nul() ? null : pick([0, 1, -1, 2147483647, -2147483648, Math.floor(r() * 2 ** 32) - 2 ** 31]);
    const l = nul() ? null : pick([0n, 1n, -1n, 9223372036854775807n, -9223372036854775808n, BigInt(Math.floor(r() * 2 ** 53)) * (r() < 0.5 ? -1n : 1n) * 997n]);
    const s = nul() ? null : pick(strings);
    const d = nul() ? null : r() < 0.5 ? pick(doubles) : (r() - 0.5) * 10 ** Math.floor(r() * 20);
    const f = nul() ? null : Math.fround(r() < 0.4 ? pick(doubles) : (r() - 0.5) * 1000);
    const dt = nul() ? null : Math.floor((r() - 0.3) * 40000);
    const b = nul() ? null : r() < 0.5;
    const decU = nul() ? null : BigInt(Math.floor((r() - 0.5) * 2e9));
    const dec2U = nul() ? null : BigInt(Math.floor((r() - 0.5) * 2 ** 52)) * BigInt(Math.floor(r() * 2 ** 44));
    const ts = nul() ? null : Math.floor((r() - 0.2) * 4e12);
    const ti = nul() ? null : Math.floor(r() * 256) - 128;
    const si = nul() ? null : Math.floor(r() * 65536) - 32768;
    const bin = nul() ? null : Uint8Array.from({ length: Math.floor(r() * 12) }, () => Math.floor(r() * 256));
    rows.push([
      i, l, s, d, f, dt, b,
      decU === null ? null : new Decimal(decU, 10, 2),
      dec2U === null ? null : new Decimal(dec2U, 30, 4),
      ts === null ? null : new Timestamp(BigInt(ts), 0),
      ti, si, bin,
    ]);
    const num = (x: number | null): Json =>
      x === null ? null : Number.isNaN(x) ? 'NaN' : x === Infinity ? 'Infinity' : x === -Infinity ? '-Infinity' : Object.is(x, -0) ? '-0.0' : x;
    json.push({
      i, l, s, d: num(d), f: num(f), dt: dt === null ? null : dateString(dt), b,
      dec: decU === null ? null : decString(decU, 2),
      dec2: dec2U === null ? null : decString(dec2U, 4),
      ts: ts === null ? null : tsString(ts),
      ti, si, bin: bin === null ? null : hex(bin),
    });
  }
  return { rows, json };
}

const ORDER_SETS: string[][] = [
  ['i', 'l'],
  ['s', 'd'],
  ['f', 'dt', 'b'],
  ['dec', 'dec2', 'ts'],
  ['ti', 'si', 'bin', 's'],
  ['d', 'i', 's', 'l', 'f', 'dt', 'b', 'dec'],
  KEY_FIELDS.map((f) => f.name),
];

async function javaKeys(v: PaimonJavaVersion, orderBy: string[], varTypeSize: number, json: Record<string, Json>[]): Promise<{ zorder: string[]; hilbert: string[] | null }> {
  const f = join(tempWarehouse('sortkeys'), 'spec.json');
  writeFileSync(f, JSON.stringify({ fields: KEY_FIELDS, orderBy, varTypeSize, rows: json }, (_k, x) => (typeof x === 'bigint' ? `__BIG__${x}` : x)).replace(/"__BIG__(-?\d+)"/g, '$1'));
  const r = await java(v).runMain('SortKeyTool', ['keys', f]);
  return parseJson(r.stdout.trim()) as unknown as { zorder: string[]; hilbert: string[] | null };
}

describe('sort keys: ours equal Paimon Java ZIndexer / HilbertIndexer bytes', () => {
  const { rows, json } = keyRows(300, 7);
  for (const v of PAIMON_JAVA_VERSIONS) {
    for (const orderBy of ORDER_SETS) {
      for (const varTypeSize of orderBy.includes('s') || orderBy.includes('bin') ? [8, 3, 13] : [8]) {
        test(`Java ${v}: ${orderBy.join(',')} (var-length contribution ${varTypeSize})`, async () => {
          const theirs = await javaKeys(v, orderBy, varTypeSize, json);
          const z = zorderEncoder(KEY_SPECS, orderBy, varTypeSize);
          const ours = rows.map((row) => hex(z.key(row)));
          for (let k = 0; k < rows.length; k++) assert.equal(ours[k], theirs.zorder[k], `zorder row ${k}: ${js(json[k])}`);
          if (varTypeSize === 8 && orderBy.length > 1) {
            const h = hilbertEncoder(KEY_SPECS, orderBy);
            assert.ok(theirs.hilbert);
            for (let k = 0; k < rows.length; k++) assert.equal(hex(h.key(rows[k])), theirs.hilbert[k], `hilbert row ${k}: ${js(json[k])}`);
          }
        });
      }
    }
  }
});
