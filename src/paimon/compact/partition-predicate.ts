/**
 * Partition selection for compact:
 *  - `partitions` (`ParameterUtils.getPartitions`): `'p=v,q=w;p=v2'`, ',' = AND within one spec,
 *    ';' = OR between specs; keys must be partition keys;
 *  - `where`: a small SQL predicate over partition columns only: `col = lit`, `<>`/`!=`, `<`, `<=`,
 *    `>`, `>=`, `col IN (lit, ...)`, `col IS [NOT] NULL`, `AND`, `OR`, `NOT`, parentheses.
 *    Literals are quoted strings or numbers (also TRUE/FALSE). Values compare as the partition's
 *    string value (its directory value); when both sides are numbers they compare numerically.
 *    A null partition value is the default partition name;
 *  - `buckets`: `'0,3-5'`, each in [0, bucket).
 * Errors are PaimonError INVALID_ARGUMENT with Spark's wording where it has one.
 */
import { PaimonError } from '../errors.js';
import { DEFAULT_PARTITION_NAME } from '../spec/partition-path.js';

export type PartitionSpecFilter = (spec: ReadonlyArray<readonly [string, string]>) => boolean;

const invalid = (msg: string): PaimonError => new PaimonError('INVALID_ARGUMENT', msg);

export function parsePartitionsArgument(text: string, partitionKeys: readonly string[], defaultName = DEFAULT_PARTITION_NAME): PartitionSpecFilter {
  const specs: Array<Array<[string, string]>> = [];
  for (const part of text.split(';')) {
    if (part.trim() === '') continue;
    const spec: Array<[string, string]> = [];
    for (const kv of part.split(',')) {
      if (kv.trim() === '') continue;
      const eq = kv.indexOf('=');
      if (eq <= 0) throw invalid(`Invalid partition spec '${part.trim()}': expected key=value pairs separated by ','`);
      spec.push([kv.slice(0, eq).trim(), kv.slice(eq + 1).trim()]);
    }
    const bad = spec.map(([k]) => k).filter((k) => !partitionKeys.includes(k));
    if (bad.length > 0) throw invalid(`Partition keys [${bad.join(', ')}] are invalid. Available partition keys are [${partitionKeys.join(', ')}]`);
    specs.push(spec);
  }
  if (specs.length === 0) throw invalid(`partitions '${text}' names no partition`);
  return (actual) => {
    const m = new Map(actual);
    return specs.some((spec) => spec.every(([k, v]) => (m.get(k) ?? defaultName) === v));
  };
}

export function parseBucketsArgument(text: string, bucketNum: number): Set<number> {
  const out = new Set<number>();
  for (const raw of text.split(',')) {
    const s = raw.trim();
    if (s === '') continue;
    const m = /^(\d+)(?:\s*-\s*(\d+))?$/.exec(s);
    if (!m) throw invalid(`Invalid bucket '${s}' in buckets '${text}': expected integers or ranges like 0,3-5`);
    const lo = Number(m[1]);
    const hi = m[2] === undefined ? lo : Number(m[2]);
    if (hi < lo || lo < 0 || hi >= bucketNum) throw invalid(`Integer or range '${s}' is out of range [0, ${bucketNum}).`);
    for (let b = lo; b <= hi; b++) out.add(b);
  }
  if (out.size === 0) throw invalid(`buckets '${text}' names no bucket`);
  return out;
}

// ------------------------------------------------------------------------------------- where

type Tok = { t: 'id'; v: string } | { t: 'str'; v: string } | { t: 'num'; v: string } | { t: 'op'; v: string } | { t: 'kw'; v: string };
const KEYWORDS = new Set(['AND', 'OR', 'NOT', 'IN', 'IS', 'NULL', 'TRUE', 'FALSE']);

function tokenize(s: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  while (i < s.length) {
    const c = s[i];
    if (/\s/.test(c)) { i++; continue; }
    if (c === "'" || c === '"') {
      let v = '';
      i++;
      for (;;) {
        if (i >= s.length) throw invalid(`where '${s}': unterminated string literal`);
        if (s[i] === c) {
          if (s[i + 1] === c) { v += c; i += 2; continue; }
          i++;
          break;
        }
        v += s[i++];
      }
      out.push({ t: 'str', v });
      continue;
    }
    if (c === '`') {
      const j = s.indexOf('`', i + 1);
      if (j < 0) throw invalid(`where '${s}': unterminated back-quote`);
      out.push({ t: 'id', v: s.slice(i + 1, j) });
      i = j + 1;
      continue;
    }
    const num = /^-?\d+(\.\d+)?/.exec(s.slice(i));
    if (num && (c !== '-' || out.length === 0 || out[out.length - 1].t === 'op' || out[out.length - 1].t === 'kw')) {
      out.push({ t: 'num', v: num[0] });
      i += num[0].length;
      continue;
    }
    const op = /^(<=|>=|<>|!=|=|<|>|\(|\)|,)/.exec(s.slice(i));
    if (op) { out.push({ t: 'op', v: op[0] }); i += op[0].length; continue; }
    const id = /^[A-Za-z_][A-Za-z0-9_]*/.exec(s.slice(i));
    if (id) {
      const up = id[0].toUpperCase();
      out.push(KEYWORDS.has(up) ? { t: 'kw', v: up } : { t: 'id', v: id[0] });
      i += id[0].length;
      continue;
    }
    throw invalid(`where '${s}': unexpected character '${c}'`);
  }
  return out;
}

type Pred = (values: ReadonlyMap<string, string | null>) => boolean;

function compareValues(a: string, b: string): number {
  const na = Number(a), nb = Number(b);
  if (a.trim() !== '' && b.trim() !== '' && Number.isFinite(na) && Number.isFinite(nb)) return na < nb ? -1 : na > nb ? 1 : 0;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Deepest nesting of parentheses and NOTs in a `where` (the parser and the predicate recurse once per level). */
export const MAX_PREDICATE_DEPTH = 64;
/** Most comparisons in one `where` (AND/OR chains evaluate as nested calls, one per comparison). */
export const MAX_PREDICATE_TERMS = 1000;

export function parsePartitionPredicate(text: string, partitionKeys: readonly string[], defaultName = DEFAULT_PARTITION_NAME): PartitionSpecFilter {
  const toks = tokenize(text);
  let p = 0;
  let depth = 0;
  let terms = 0;
  const peek = (): Tok | undefined => toks[p];
  const isKw = (v: string): boolean => peek()?.t === 'kw' && peek()!.v === v;
  const isOp = (v: string): boolean => peek()?.t === 'op' && peek()!.v === v;
  const fail = (why: string): never => { throw invalid(`Invalid where '${text}': ${why}`); };
  const literal = (): string => {
    const t = toks[p++];
    if (!t) return fail('unexpected end');
    if (t.t === 'str' || t.t === 'num') return t.v;
    if (t.t === 'kw' && (t.v === 'TRUE' || t.v === 'FALSE')) return t.v.toLowerCase();
    return fail(`expected a literal, got '${t.v}'`);
  };
  const column = (): string => {
    const t = toks[p++];
    if (!t || t.t !== 'id') return fail(`expected a column, got '${t?.v ?? 'end'}'`);
    if (!partitionKeys.includes(t.v)) {
      throw invalid(`Only partition predicate is supported, your predicate is ${text}, but partition keys are [${partitionKeys.join(', ')}]`);
    }
    return t.v;
  };
  const nested = <T>(f: () => T): T => {
    if (++depth > MAX_PREDICATE_DEPTH) {
      throw invalid(`where nests parentheses and NOT more than ${MAX_PREDICATE_DEPTH} levels deep; write it flatter (IN lists, fewer parentheses)`);
    }
    try {
      return f();
    } finally {
      depth--;
    }
  };
  const comparison = (): Pred => {
    if (isOp('(')) {
      p++;
      const e = nested(orExpr);
      if (!isOp(')')) fail("expected ')'");
      p++;
      return e;
    }
    if (isKw('NOT')) {
      p++;
      const e = nested(comparison);
      return (v) => !e(v);
    }
    if (++terms > MAX_PREDICATE_TERMS) {
      throw invalid(`where has more than ${MAX_PREDICATE_TERMS} comparisons; use IN lists or the partitions argument`);
    }
    const col = column();
    if (isKw('IS')) {
      p++;
      const neg = isKw('NOT');
      if (neg) p++;
      if (!isKw('NULL')) fail('expected NULL after IS');
      p++;
      return (v) => (v.get(col) === null) !== neg;
    }
    const negIn = isKw('NOT');
    if (negIn) p++;
    if (isKw('IN')) {
      p++;
      if (!isOp('(')) fail("expected '(' after IN");
      p++;
      const list: string[] = [literal()];
      while (isOp(',')) { p++; list.push(literal()); }
      if (!isOp(')')) fail("expected ')'");
      p++;
      return (v) => {
        const x = v.get(col);
        if (x === null || x === undefined) return false;
        return list.some((l) => compareValues(x, l) === 0) !== negIn;
      };
    }
    if (negIn) fail('expected IN after NOT');
    const op = toks[p++];
    if (!op || op.t !== 'op' || !['=', '<>', '!=', '<', '<=', '>', '>='].includes(op.v)) return fail(`expected a comparison after ${col}`);
    const lit = literal();
    return (v) => {
      const x = v.get(col);
      if (x === null || x === undefined) return false;
      const c = compareValues(x, lit);
      switch (op.v) {
        case '=': return c === 0;
        case '<>': case '!=': return c !== 0;
        case '<': return c < 0;
        case '<=': return c <= 0;
        case '>': return c > 0;
        default: return c >= 0;
      }
    };
  };
  const andExpr = (): Pred => {
    let l = comparison();
    while (isKw('AND')) {
      p++;
      const a = l, b = comparison();
      l = (v) => a(v) && b(v);
    }
    return l;
  };
  const orExpr = (): Pred => {
    let l = andExpr();
    while (isKw('OR')) {
      p++;
      const a = l, b = andExpr();
      l = (v) => a(v) || b(v);
    }
    return l;
  };
  if (toks.length === 0) fail('empty predicate');
  const pred = orExpr();
  if (p < toks.length) fail(`unexpected '${toks[p].v}'`);
  return (spec) => pred(new Map(spec.map(([k, v]) => [k, v === defaultName ? null : v] as const)));
}
