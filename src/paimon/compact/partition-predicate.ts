/**
 * Partition selection for compact:
 *  - `partitions` (`ParameterUtils.getPartitions`): `'p=v,q=w;p=v2'`, ',' = AND within one spec,
 *    ';' = OR between specs; keys must be partition keys;
 *  - `where`: a SQL predicate over partition columns only (parsePartitionPredicate);
 *  - `buckets`: `'0,3-5'`, each in [0, bucket).
 * Errors are PaimonError INVALID_ARGUMENT with Spark's wording where it has one.
 */
import { PaimonError } from '../errors.js';
import { DEFAULT_PARTITION_NAME } from '../spec/partition-path.js';
import { isAstNode, mysqlParser, nestingDepth, regroupLogical, type AstNode } from '../sql/mysql-expression.js';

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

/** node-sql-parser's literal node types. */
const LITERAL_TYPES = new Set(['single_quote_string', 'double_quote_string', 'string', 'number', 'bigint', 'bool', 'null']);
const COMPARISONS = new Set(['=', '<>', '!=', '<', '<=', '>', '>=']);
/** The comparison with its sides swapped (`5 < hh` is `hh > 5`). */
const MIRRORED: Record<string, string> = { '=': '=', '<>': '<>', '!=': '!=', '<': '>', '<=': '>=', '>': '<', '>=': '<=' };

/** MySQL's backslash escapes in a quoted literal (node-sql-parser keeps the text as written). */
const ESCAPES: Record<string, string> = { '0': '\0', "'": "'", '"': '"', b: '\b', n: '\n', r: '\r', t: '\t', Z: '\x1a', '\\': '\\' };

function unquote(raw: string, quote: string): string {
  return raw.replace(/\\(.)|''|""/g, (m, esc: string | undefined) => {
    if (esc === undefined) return m[0] === quote ? quote : m;
    return ESCAPES[esc] ?? `\\${esc}`;
  });
}

function compare(op: string, c: number): boolean {
  switch (op) {
    case '=': return c === 0;
    case '<>': case '!=': return c !== 0;
    case '<': return c < 0;
    case '<=': return c <= 0;
    case '>': return c > 0;
    default: return c >= 0;
  }
}

/**
 * Compact's `where`: a predicate over partition columns, parsed with node-sql-parser's MySQL
 * grammar (src/paimon/sql/mysql-expression.ts, AND/OR regrouped as SQL groups them) after the
 * nesting and length limits are checked on the text. It takes `col = lit`, `<>`/`!=`, `<`, `<=`,
 * `>`, `>=` (either side may be the column), `col [NOT] IN (lit, ...)`,
 * `col [NOT] BETWEEN lit AND lit`, `col IS [NOT] NULL`, `AND`, `OR`, `NOT` and parentheses, with
 * quoted strings (MySQL escapes), numbers and TRUE/FALSE as literals. Values compare as the
 * partition's string value (its directory value), numerically when both sides are numbers; a
 * null partition value is the default partition name. Other SQL (LIKE, functions, arithmetic)
 * is NOT_SUPPORTED, naming the partitions argument instead.
 */
export function parsePartitionPredicate(text: string, partitionKeys: readonly string[], defaultName = DEFAULT_PARTITION_NAME): PartitionSpecFilter {
  const fail = (why: string): never => { throw invalid(`Invalid where '${text}': ${why}`); };
  const unsupported = (what: string): never => {
    throw new PaimonError(
      'NOT_SUPPORTED',
      `where '${text}': ${what} is not supported; use comparisons, [NOT] IN, [NOT] BETWEEN and IS [NOT] NULL on partition columns with AND/OR/NOT, or the partitions argument ('p=v,q=w;p=v2')`,
    );
  };
  if (text.trim() === '') fail('empty predicate');
  const { depth, comparisons } = nestingDepth(text);
  if (depth > MAX_PREDICATE_DEPTH) {
    throw invalid(`where nests parentheses and NOT more than ${MAX_PREDICATE_DEPTH} levels deep; write it flatter (IN lists, fewer parentheses)`);
  }
  if (comparisons > MAX_PREDICATE_TERMS) throw invalid(`where has more than ${MAX_PREDICATE_TERMS} comparisons; use IN lists or the partitions argument`);
  let ast: unknown;
  try {
    ast = mysqlParser().astify(`SELECT * FROM t WHERE ${text}`);
  } catch (e) {
    return fail((e instanceof Error ? e.message : String(e)).replace(/^Expected .* but /s, '').slice(0, 200));
  }
  if (Array.isArray(ast)) return fail('it holds more than one statement');
  if (!isAstNode(ast)) return fail('it is not an expression');
  for (const clause of ['groupby', 'having', 'orderby', 'limit', 'window', '_next', 'into', 'for_update', 'locking_read']) {
    const v = ast[clause];
    if (v !== undefined && v !== null && !(isAstNode(v) && Object.values(v).every((x) => x === null || (Array.isArray(x) && x.length === 0)))) {
      return fail(`only a predicate may follow; '${clause.replace(/^_next$/, 'UNION')}' is not one`);
    }
  }
  const literal = (n: unknown): string => {
    if (!isAstNode(n)) return fail('expected a literal');
    switch (n['type']) {
      case 'single_quote_string':
      case 'string':
        return unquote(String(n['value']), "'");
      case 'double_quote_string':
        return unquote(String(n['value']), '"');
      case 'number':
      case 'bigint':
        return String(n['value']);
      case 'bool':
        return String(n['value']);
      case 'null':
        return fail('NULL is not a value to compare with; use IS NULL or IS NOT NULL');
      case 'column_ref':
        return fail(`expected a literal, got the column ${columnName(n) ?? '?'}`);
      default:
        return unsupported(`the ${String(n['type']).replace(/_/g, ' ')} literal`);
    }
  };
  const columnName = (n: AstNode): string | null => {
    const c = n['column'];
    if (typeof c === 'string') return c;
    if (isAstNode(c) && isAstNode(c['expr']) && typeof c['expr']['value'] === 'string') return c['expr']['value'];
    return null;
  };
  const column = (n: unknown): string | null => {
    if (!isAstNode(n) || n['type'] !== 'column_ref') return null;
    const name = columnName(n);
    if (name === null || (n['table'] !== null && n['table'] !== undefined)) return fail('columns are named without a table');
    if (!partitionKeys.includes(name)) {
      throw invalid(`Only partition predicate is supported, your predicate is ${text}, but partition keys are [${partitionKeys.join(', ')}]`);
    }
    return name;
  };
  const needColumn = (n: unknown, what: string): string => column(n) ?? fail(`${what} takes a partition column on its left`);
  const list = (n: unknown, what: string): string[] => {
    if (!isAstNode(n) || n['type'] !== 'expr_list' || !Array.isArray(n['value'])) return fail(`${what} takes a list of literals`);
    return (n['value'] as unknown[]).map(literal);
  };
  const pred = (n: unknown): Pred => {
    if (!isAstNode(n)) return fail('expected a predicate');
    if (n['type'] === 'unary_expr' && n['operator'] === 'NOT') {
      const e = pred(n['expr']);
      return (v) => !e(v);
    }
    if (n['type'] === 'function') {
      // `NOT (x)` comes back as a call of a function named NOT.
      const name = isAstNode(n['name']) && Array.isArray(n['name']['name']) ? (n['name']['name'] as AstNode[]).map((x) => String(x['value'])).join('.') : '';
      const args = isAstNode(n['args']) && Array.isArray(n['args']['value']) ? (n['args']['value'] as unknown[]) : [];
      if (name.toUpperCase() === 'NOT' && args.length === 1) {
        const e = pred(args[0]);
        return (v) => !e(v);
      }
      return unsupported(`the function ${name}()`);
    }
    if (n['type'] !== 'binary_expr') {
      if (n['type'] === 'column_ref' || n['type'] === 'bool' || n['type'] === 'number') return fail('expected a comparison');
      return unsupported(`'${String(n['type']).replace(/_/g, ' ')}'`);
    }
    const op = String(n['operator']).toUpperCase();
    if (op === 'AND' || op === 'OR') {
      const a = pred(n['left']);
      const b = pred(n['right']);
      return op === 'AND' ? (v) => a(v) && b(v) : (v) => a(v) || b(v);
    }
    if (op === 'IS' || op === 'IS NOT') {
      const col = needColumn(n['left'], op);
      if (!isAstNode(n['right']) || n['right']['type'] !== 'null') return unsupported(`${op} with anything but NULL`);
      return (v) => (v.get(col) === null) !== (op === 'IS NOT');
    }
    if (op === 'IN' || op === 'NOT IN') {
      const col = needColumn(n['left'], op);
      const values = list(n['right'], op);
      return (v) => {
        const x = v.get(col);
        if (x === null || x === undefined) return false;
        return values.some((l) => compareValues(x, l) === 0) !== (op === 'NOT IN');
      };
    }
    if (op === 'BETWEEN' || op === 'NOT BETWEEN') {
      const col = needColumn(n['left'], op);
      const bounds = list(n['right'], op);
      if (bounds.length !== 2) return fail(`${op} takes two bounds`);
      const [lo, hi] = bounds;
      return (v) => {
        const x = v.get(col);
        if (x === null || x === undefined) return false;
        return (compareValues(x, lo) >= 0 && compareValues(x, hi) <= 0) !== (op === 'NOT BETWEEN');
      };
    }
    if (COMPARISONS.has(op)) {
      const leftCol = column(n['left']);
      const col =
        leftCol ??
        column(n['right']) ??
        (LITERAL_TYPES.has(String(isAstNode(n['left']) ? n['left']['type'] : '')) && LITERAL_TYPES.has(String(isAstNode(n['right']) ? n['right']['type'] : ''))
          ? fail('a comparison needs a partition column on one side')
          : unsupported('a comparison of expressions'));
      const lit = literal(leftCol !== null ? n['right'] : n['left']);
      const cmp = leftCol !== null ? op : MIRRORED[op];
      return (v) => {
        const x = v.get(col);
        if (x === null || x === undefined) return false;
        return compare(cmp, compareValues(x, lit));
      };
    }
    return unsupported(`the operator ${op}`);
  };
  const where = regroupLogical(ast['where']);
  const predicate = pred(where);
  return (spec) => predicate(new Map(spec.map(([k, v]) => [k, v === defaultName ? null : v] as const)));
}
