import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bindArguments, bindArgumentsDynamic, type CallArgument, type ArgumentValue } from '../../../../procedures/framework/binding.js';
import { defineProcedure, ProcedureRegistry } from '../../../../procedures/framework/registry.js';
import { ProcedureError, ERROR_CODES, PAIMON_ERROR_MAPPING, toProcedureError, renderErrorTable, isProcedureError } from '../../../../procedures/framework/errors.js';
import { ProcedureExecutor, type CallOutcome } from '../../../../procedures/framework/executor.js';
import { parseTableIdentifier } from '../../../../procedures/framework/target.js';
import { renderProcedureTable, procedureListing } from '../../../../procedures/framework/docs.js';
import { formatSignature, traitsOf, validateSignature, type ProcedureSignature } from '../../../../procedures/framework/signature.js';
import { renderDocs } from '../../../../procedures/framework/render-docs.js';
import { createDefaultRegistry } from '../../../../procedures/index.js';
import { jobProcedures } from '../../../../procedures/jobs/job-procedures.js';
import { PaimonError } from '../../../../src/paimon/errors.js';
import { CatalogSet, FileSystemProcedureCatalog } from '../../../../src/catalogs.js';
import { LocalFileIO } from '../../../../src/paimon/fs/local-file-io.js';
import { configSchema } from '../../../../src/config-schema.js';

const str = (value: string): ArgumentValue => ({ kind: 'string', value });
const int = (n: bigint | number): ArgumentValue => ({ kind: 'integer', value: BigInt(n), text: String(n) });
const pos = (...values: ArgumentValue[]): CallArgument[] => values.map((value, i) => ({ name: null, value, offset: i }));
const named = (...pairs: [string, ArgumentValue][]): CallArgument[] => pairs.map(([name, value], i) => ({ name, value, offset: i }));

const expireLike = defineProcedure({
  name: 'expire_like',
  description: 'test procedure shaped like expire_snapshots',
  params: [
    { name: 'table', type: 'string', required: true, description: 'db.table' },
    { name: 'retain_max', type: 'int', description: 'max' },
    { name: 'retain_min', type: 'int', default: 1, description: 'min' },
    { name: 'snapshot', aliases: ['snapshot_id'], type: 'bigint', description: 'id' },
    { name: 'dry_run', type: 'boolean', default: false, description: 'no changes' },
    { name: 'ratio', type: 'double', description: 'a double' },
  ],
  resultColumns: [
    { name: 'deleted_snapshots_count', type: 'int', description: 'count' },
    { name: 'dry_run', type: 'boolean', description: 'dry' },
  ],
  privilege: { privilege: 'ALTER', on: 'table' },
  destructive: true,
  async run(args) {
    // Compile-time check of the inferred argument types.
    const t: string = args.table;
    const m: number | null = args.retain_max;
    const mn: number = args.retain_min;
    const s: bigint | null = args.snapshot;
    void t; void m; void mn; void s;
    return { rows: [{ deleted_snapshots_count: args.retain_max ?? 0, dry_run: args.dry_run }] };
  },
});

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof ProcedureError) return e.code;
    throw e;
  }
  throw new Error('expected a ProcedureError');
}

describe('argument binding', () => {
  test('positional arguments bind in declared order, absent ones take defaults or NULL', () => {
    const a = bindArguments(expireLike, pos(str('db.t'), int(5)));
    assert.deepEqual(a, { table: 'db.t', retain_max: 5, retain_min: 1, snapshot: null, dry_run: false, ratio: null });
  });
  test('named arguments match case-insensitively and through aliases', () => {
    const a = bindArguments(expireLike, named(['TABLE', str('db.t')], ['Snapshot_Id', int(7)], ['dry_run', { kind: 'boolean', value: true }]));
    assert.equal(a.table, 'db.t');
    assert.equal(a.snapshot, 7n);
    assert.equal(a.dry_run, true);
  });
  test('mixing named and positional is refused', () => {
    assert.equal(codeOf(() => bindArgumentsDynamic(expireLike, [...pos(str('db.t')), ...named(['retain_max', int(1)])])), 'ARGUMENTS_MIXED');
  });
  test('unknown, duplicated (also through an alias) and missing arguments are refused with the signature', () => {
    assert.equal(codeOf(() => bindArgumentsDynamic(expireLike, named(['table', str('a.b')], ['nope', int(1)]))), 'ARGUMENT_UNKNOWN');
    assert.equal(codeOf(() => bindArgumentsDynamic(expireLike, named(['table', str('a.b')], ['table', str('c.d')]))), 'ARGUMENT_DUPLICATED');
    assert.equal(codeOf(() => bindArgumentsDynamic(expireLike, named(['table', str('a.b')], ['snapshot', int(1)], ['SNAPSHOT_ID', int(2)]))), 'ARGUMENT_DUPLICATED');
    assert.equal(codeOf(() => bindArgumentsDynamic(expireLike, named(['retain_max', int(1)]))), 'ARGUMENT_MISSING');
    assert.equal(codeOf(() => bindArgumentsDynamic(expireLike, pos({ kind: 'null' }))), 'ARGUMENT_MISSING');
    try {
      bindArgumentsDynamic(expireLike, named(['nope', int(1)]));
      assert.fail('no error');
    } catch (e) {
      assert.ok(e instanceof ProcedureError);
      assert.ok(e.message.includes(formatSignature(expireLike)), e.message);
      assert.equal(e.errno, 1210);
    }
  });
  test('too many positional arguments is 1318', () => {
    const e = (() => {
      try {
        bindArgumentsDynamic(expireLike, pos(str('a'), int(1), int(1), int(1), int(1), int(1), int(1)));
      } catch (err) {
        return err;
      }
      return null;
    })();
    assert.ok(isProcedureError(e, 'TOO_MANY_ARGUMENTS'));
    assert.equal(e.errno, 1318);
    assert.equal(e.sqlState, '42000');
  });
  test('types follow Spark up-cast rules', () => {
    // integer -> STRING is accepted as its text; string -> INT is not
    assert.equal(bindArgumentsDynamic(expireLike, pos(int(12))).table, '12');
    assert.equal(codeOf(() => bindArgumentsDynamic(expireLike, pos(str('a'), str('5')))), 'ARGUMENT_TYPE');
    assert.equal(codeOf(() => bindArgumentsDynamic(expireLike, pos(str('a'), { kind: 'decimal', text: '1.5' }))), 'ARGUMENT_TYPE');
    assert.equal(codeOf(() => bindArgumentsDynamic(expireLike, pos(str('a'), int(2147483648n)))), 'ARGUMENT_TYPE');
    assert.equal(bindArgumentsDynamic(expireLike, pos(str('a'), int(-2147483648n))).retain_max, -2147483648);
    // BIGINT keeps 64 bits exactly
    assert.equal(bindArgumentsDynamic(expireLike, named(['table', str('a')], ['snapshot', int(9223372036854775807n)])).snapshot, 9223372036854775807n);
    assert.equal(codeOf(() => bindArgumentsDynamic(expireLike, named(['table', str('a')], ['snapshot', int(9223372036854775808n)]))), 'ARGUMENT_TYPE');
    // BOOLEAN accepts TRUE/FALSE and MySQL's 1/0, nothing else
    assert.equal(bindArgumentsDynamic(expireLike, named(['table', str('a')], ['dry_run', int(1)])).dry_run, true);
    assert.equal(codeOf(() => bindArgumentsDynamic(expireLike, named(['table', str('a')], ['dry_run', int(2)]))), 'ARGUMENT_TYPE');
    assert.equal(codeOf(() => bindArgumentsDynamic(expireLike, named(['table', str('a')], ['dry_run', str('true')]))), 'ARGUMENT_TYPE');
    // DOUBLE accepts integers and decimals
    assert.equal(bindArgumentsDynamic(expireLike, named(['table', str('a')], ['ratio', { kind: 'decimal', text: '-1.5e2' }])).ratio, -150);
  });
  test('a signature with a clash of names is refused at declaration', () => {
    assert.throws(() =>
      defineProcedure({
        name: 'bad',
        description: '',
        params: [
          { name: 'a', type: 'string', description: '' },
          { name: 'b', aliases: ['A'], type: 'string', description: '' },
        ],
        resultColumns: [],
        privilege: { privilege: 'SELECT', on: 'table' },
        destructive: false,
        async run() {
          return { rows: [] };
        },
      }),
    );
  });
});

describe('procedure traits (table lock and FE refresh, heavy-job cap, caller scoping)', () => {
  const base: ProcedureSignature = {
    name: 'probe',
    description: '',
    params: [{ name: 'table', type: 'string', required: true, description: '' }],
    resultColumns: [],
    privilege: { privilege: 'SELECT', on: 'table' },
    destructive: false,
  };
  const withDryRun = [...base.params, { name: 'dry_run', type: 'boolean', default: false, description: '' }] as const;

  test('a read-only procedure declares nothing and is neither locked, heavy nor caller-scoped', () => {
    assert.deepEqual(traitsOf(base), { changesMetadata: false, heavy: false, callerScoped: false });
  });
  test('changing metadata defaults to destructive or a privilege above SELECT', () => {
    assert.equal(traitsOf({ ...base, privilege: { privilege: 'ALTER', on: 'table' } }).changesMetadata, true);
    assert.equal(traitsOf({ ...base, params: withDryRun, privilege: { privilege: 'ALTER', on: 'table' }, destructive: true }).changesMetadata, true);
    assert.equal(traitsOf({ ...base, privilege: { privilege: 'ALTER', on: 'catalog' }, changesMetadata: false }).changesMetadata, false);
  });
  test('traits that would let a call past a safeguard are refused at declaration', () => {
    const refused = (sig: ProcedureSignature, why: RegExp) => assert.throws(() => validateSignature(sig), why);
    refused({ ...base, params: withDryRun, privilege: { privilege: 'ALTER', on: 'table' }, destructive: true, changesMetadata: false }, /destructive procedure changes metadata/);
    refused({ ...base, changesMetadata: true }, /changes metadata needs more than SELECT/);
    refused({ ...base, params: withDryRun, destructive: true }, /changes metadata needs more than SELECT/);
    refused({ ...base, params: [], callerScoped: true, heavy: true }, /caller-scoped procedure must not be destructive, change metadata or be heavy/);
    refused({ ...base, params: [], privilege: { privilege: 'ALTER', on: 'catalog' }, callerScoped: true }, /caller-scoped procedure must not be destructive, change metadata or be heavy/);
    refused({ ...base, callerScoped: true }, /caller-scoped procedure must not take a table argument/);
    validateSignature({ ...base, params: [], callerScoped: true });
    validateSignature({ ...base, heavy: true });
  });
  test('the built-in and job procedures are locked, heavy and scoped as the operations layer expects', () => {
    const all = [...createDefaultRegistry().list(), ...new ProcedureRegistry(jobProcedures(() => undefined)).list()].map((r) => r.signature);
    const expected: Record<string, { changesMetadata: boolean; heavy: boolean; callerScoped: boolean; privilege: string }> = {
      compact: { changesMetadata: true, heavy: true, callerScoped: false, privilege: 'ALTER on table' },
      expire_snapshots: { changesMetadata: true, heavy: false, callerScoped: false, privilege: 'ALTER on table' },
      remove_orphan_files: { changesMetadata: true, heavy: true, callerScoped: false, privilege: 'ALTER on table' },
      rollback: { changesMetadata: true, heavy: false, callerScoped: false, privilege: 'ALTER on table' },
      rollback_to: { changesMetadata: true, heavy: false, callerScoped: false, privilege: 'ALTER on table' },
      rollback_to_as_latest: { changesMetadata: true, heavy: false, callerScoped: false, privilege: 'ALTER on table' },
      rollback_to_timestamp: { changesMetadata: true, heavy: false, callerScoped: false, privilege: 'ALTER on table' },
      list_jobs: { changesMetadata: false, heavy: false, callerScoped: true, privilege: 'SELECT on catalog' },
      job_status: { changesMetadata: false, heavy: false, callerScoped: true, privilege: 'SELECT on catalog' },
      cancel_job: { changesMetadata: false, heavy: false, callerScoped: true, privilege: 'ALTER on catalog' },
    };
    for (const [name, want] of Object.entries(expected)) {
      const sig = all.find((s) => s.name === name);
      assert.ok(sig, `${name} is registered`);
      assert.deepEqual({ ...traitsOf(sig), privilege: `${sig.privilege.privilege} on ${sig.privilege.on}` }, want, name);
    }
  });
});

describe('error codes', () => {
  test('every PaimonError code maps to a code of the table', () => {
    for (const c of Object.values(PAIMON_ERROR_MAPPING)) assert.ok(c in ERROR_CODES, c);
    const e = toProcedureError(new PaimonError('TABLE_NOT_FOUND', 'no t'));
    assert.equal(e.code, 'TABLE_NOT_FOUND');
    assert.equal(e.errno, 1146);
    assert.equal(e.sqlState, '42S02');
  });
  test('the error table lists every code with a five-character SQLSTATE', () => {
    const table = renderErrorTable();
    for (const [code, info] of Object.entries(ERROR_CODES)) {
      assert.ok(table.includes(`\`${code}\``));
      assert.match(info.sqlState, /^[0-9A-Z]{5}$/);
    }
  });
});

describe('built-in registry and generated docs', () => {
  test('every built-in procedure is documented with every parameter and result column, and every error code is listed', () => {
    const md = renderDocs('all');
    const reg = createDefaultRegistry();
    assert.ok(reg.list().length >= 1);
    for (const p of reg.list()) {
      const s = p.signature;
      assert.ok(md.includes(`### \`${s.name}\``), s.name);
      assert.ok(s.description.length > 20, `${s.name} has a description`);
      for (const param of s.params) {
        assert.ok(param.description.length > 0, `${s.name}.${param.name} has a description`);
        assert.ok(md.includes(`\`${param.name}\``));
      }
      for (const c of s.resultColumns) assert.ok(md.includes(`| \`${c.name}\` |`), `${s.name} column ${c.name}`);
      // Every procedure is reachable by each of its names.
      for (const n of [s.name, ...(s.aliases ?? [])]) assert.equal(reg.lookup(n.toUpperCase()), p);
    }
    for (const code of Object.keys(ERROR_CODES)) assert.ok(md.includes(`\`${code}\``));
  });
});

describe('table identifiers', () => {
  const o = { catalog: 'paimon', currentDatabase: 'cur' };
  test('accepted spellings', () => {
    assert.deepEqual(parseTableIdentifier('db.t', o), { database: 'db', table: 't', branch: null });
    assert.deepEqual(parseTableIdentifier('t', o), { database: 'cur', table: 't', branch: null });
    assert.deepEqual(parseTableIdentifier('paimon.db.t$branch_b1', o), { database: 'db', table: 't', branch: 'b1' });
    assert.deepEqual(parseTableIdentifier('`my.db`.`t``x`', o), { database: 'my.db', table: 't`x', branch: null });
    assert.deepEqual(parseTableIdentifier('db.t$branch_main', o), { database: 'db', table: 't', branch: null });
    assert.deepEqual(parseTableIdentifier('db.*', { ...o, allowWildcard: true }), { database: 'db', table: '*', branch: null });
  });
  test('refused spellings', () => {
    assert.equal(codeOf(() => parseTableIdentifier('', o)), 'INVALID_ARGUMENT');
    assert.equal(codeOf(() => parseTableIdentifier('t', { ...o, currentDatabase: null })), 'INVALID_ARGUMENT');
    assert.equal(codeOf(() => parseTableIdentifier('other.db.t', o)), 'INVALID_ARGUMENT');
    assert.equal(codeOf(() => parseTableIdentifier('a.b.c.d', o)), 'INVALID_ARGUMENT');
    assert.equal(codeOf(() => parseTableIdentifier('db.', o)), 'INVALID_ARGUMENT');
    assert.equal(codeOf(() => parseTableIdentifier('db.*', o)), 'INVALID_ARGUMENT');
    assert.equal(codeOf(() => parseTableIdentifier('db.t$branch_', o)), 'INVALID_ARGUMENT');
    assert.equal(codeOf(() => parseTableIdentifier('db.t$snapshots', o)), 'UNSUPPORTED_TABLE');
    assert.equal(codeOf(() => parseTableIdentifier('db.t$branch_b$snapshots', o)), 'UNSUPPORTED_TABLE');
  });
});

describe('executor end to end over a filesystem catalog', () => {
  let wh: string;
  let executor: ProcedureExecutor;
  const limits = configSchema.parse({}).procedures;
  const caller = { user: 'root', connectionId: 1, clientAddress: '127.0.0.1:1', currentDatabase: null };
  const finished: CallOutcome[] = [];

  const resolveProbe = defineProcedure({
    name: 'resolve_probe',
    aliases: ['probe'],
    description: 'resolves its table and reports it',
    params: [
      { name: 'table', type: 'string', required: true, description: 'db.table' },
      { name: 'sleep_ms', type: 'int', default: 0, description: 'wait this long, watching the signal' },
      { name: 'commit_first', type: 'boolean', default: false, description: 'markCommitted before sleeping' },
    ],
    resultColumns: [
      { name: 'identifier', type: 'string', description: '' },
      { name: 'location', type: 'string', description: '' },
      { name: 'big', type: 'bigint', description: '' },
    ],
    privilege: { privilege: 'SELECT', on: 'table' },
    destructive: false,
    async run(args, ctx) {
      const t = await ctx.resolveTable(args.table);
      if (args.commit_first) ctx.markCommitted();
      const until = Date.now() + args.sleep_ms;
      while (Date.now() < until) {
        ctx.throwIfAborted();
        await new Promise((r) => setTimeout(r, 5));
      }
      ctx.reportAffected(t.identifier);
      ctx.warn('just a test warning');
      return { rows: [{ identifier: t.identifier, location: t.location, big: 2n ** 62n }], info: 'probed' };
    },
  });

  before(async () => {
    wh = await mkdtemp(join(tmpdir(), 'framework-test-'));
    await mkdir(join(wh, 'db.db', 't', 'schema'), { recursive: true });
    await writeFile(join(wh, 'db.db', 't', 'schema', 'schema-0'), '{}');
    await mkdir(join(wh, 'db.db', 't', 'branch', 'branch-b1'), { recursive: true });
    await mkdir(join(wh, 'db.db', 'not_a_table'), { recursive: true });
    const catalogs = new CatalogSet([new FileSystemProcedureCatalog('paimon', wh, new LocalFileIO())]);
    executor = new ProcedureExecutor({
      registry: new ProcedureRegistry([resolveProbe, expireLike]),
      catalogs,
      limits,
      hooks: { onFinish: (o) => void finished.push(o) },
    });
  });
  after(async () => {
    await rm(wh, { recursive: true, force: true });
  });

  const call = (procedure: string, args: CallArgument[], catalog = 'paimon', signal = new AbortController().signal, timeoutMs?: number) =>
    executor.run({ catalog, procedure, args, statement: 'CALL ...', ...(timeoutMs ? { timeoutMs } : {}) }, caller, signal);

  test('a successful call answers a result set in declared order and the final OK with warnings', async () => {
    const o = await call('PROBE', pos(str('db.t$branch_b1')));
    assert.ok(o.ok);
    assert.equal(o.replies.length, 2);
    const [rs, ok] = o.replies;
    assert.equal(rs!.kind, 'resultset');
    if (rs!.kind === 'resultset') {
      assert.deepEqual(rs.columns.map((c) => c.name), ['identifier', 'location', 'big']);
      assert.deepEqual(rs.rows, [['db.t$branch_b1', `${wh}/db.db/t`, '4611686018427387904']]);
    }
    assert.equal(ok!.kind, 'ok');
    if (ok!.kind === 'ok') {
      assert.equal(ok.info, 'probed');
      assert.equal(ok.warnings?.length, 1);
    }
    assert.deepEqual(o.affected, ['db.t$branch_b1']);
    assert.equal(finished.at(-1), o);
  });

  test('missing database, table and branch are errors naming them, never a fallback', async () => {
    const codes: string[] = [];
    for (const t of ['nodb.t', 'db.nope', 'db.not_a_table', 'db.t$branch_b2']) {
      const o = await call('resolve_probe', pos(str(t)));
      assert.ok(!o.ok);
      codes.push(o.error.code);
      const name = t.includes('$') ? 'b2' : t.split('.')[t.startsWith('nodb') ? 0 : 1]!;
      assert.ok(o.error.message.includes(name), o.error.message);
    }
    assert.deepEqual(codes, ['DATABASE_NOT_FOUND', 'TABLE_NOT_FOUND', 'TABLE_NOT_FOUND', 'BRANCH_NOT_FOUND']);
  });

  test('identifiers cannot step outside the warehouse (path traversal is a missing object, never a path)', async () => {
    for (const [t, code] of [
      ['`..`.`t`', 'DATABASE_NOT_FOUND'],
      ['`.`.`t`', 'DATABASE_NOT_FOUND'],
      ['db.`../db.db/t`', 'TABLE_NOT_FOUND'],
      ['`db.db/..`.t', 'DATABASE_NOT_FOUND'],
      ['db.`t/../t`', 'TABLE_NOT_FOUND'],
      ['db.`t\0`', 'TABLE_NOT_FOUND'],
      ['db.`t$branch_../../t`', 'INVALID_ARGUMENT'],
      ['db.`t$branch_..`', 'BRANCH_NOT_FOUND'],
    ] as const) {
      const o = await call('resolve_probe', pos(str(t)));
      assert.ok(!o.ok, t);
      assert.equal(o.error.code, code, `${t}: ${o.error.message}`);
    }
  });

  test('unknown procedure is 1305 and lists the existing ones', async () => {
    const o = await call('no_such_proc', []);
    assert.ok(!o.ok);
    assert.equal(o.error.code, 'PROCEDURE_NOT_FOUND');
    const r = o.replies[0]!;
    assert.ok(r.kind === 'error' && r.errno === 1305 && r.sqlState === '42000');
    assert.ok(o.error.message.includes('resolve_probe') && o.error.message.includes('expire_like'));
  });

  test('unknown catalog is refused', async () => {
    const o = await call('probe', pos(str('db.t')), 'elsewhere');
    assert.ok(!o.ok && o.error.code === 'CATALOG_NOT_FOUND');
  });

  test('an abort stops the call with 1317 and says nothing was committed', async () => {
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 30);
    const o = await call('probe', named(['table', str('db.t')], ['sleep_ms', int(5000)]), 'paimon', ac.signal);
    assert.ok(!o.ok);
    assert.equal(o.error.code, 'QUERY_INTERRUPTED');
    assert.equal(o.error.committed, false);
    assert.match(o.error.message, /Nothing was committed/);
  });

  test('a timeout after a commit says part of the work was committed', async () => {
    const o = await call('probe', named(['table', str('db.t')], ['sleep_ms', int(5000)], ['commit_first', { kind: 'boolean', value: true }]), 'paimon', undefined, 40);
    assert.ok(!o.ok);
    assert.equal(o.error.code, 'TIMEOUT');
    assert.equal(o.error.errno, 3024);
    assert.equal(o.error.committed, true);
    assert.match(o.error.message, /committed/);
  });

  test('framework arguments (timeout) are set aside before binding and reach the hooks', async () => {
    const seen: Record<string, unknown>[] = [];
    const ex = new ProcedureExecutor({
      registry: executor.registry,
      catalogs: executor.catalogs,
      limits,
      frameworkParams: [{ name: 'timeout', type: 'int', description: 'ms' }],
      hooks: {
        timeoutMs: (info) => {
          seen.push(info.frameworkArgs);
          return typeof info.frameworkArgs['timeout'] === 'number' ? info.frameworkArgs['timeout'] : undefined;
        },
      },
    });
    const o = await ex.run(
      { catalog: 'paimon', procedure: 'probe', args: named(['table', str('db.t')], ['sleep_ms', int(5000)], ['TIMEOUT', int(30)]), statement: '' },
      caller,
      new AbortController().signal,
    );
    assert.ok(!o.ok && o.error.code === 'TIMEOUT');
    assert.deepEqual(seen, [{ timeout: 30 }]);
    assert.deepEqual(o.info?.args, { table: 'db.t', sleep_ms: 5000, commit_first: false });
    // Without the framework declaration the same argument is unknown to the procedure.
    const o2 = await call('probe', named(['table', str('db.t')], ['timeout', int(30)]));
    assert.ok(!o2.ok && o2.error.code === 'ARGUMENT_UNKNOWN');
    // A wrongly typed framework argument is refused like any other.
    const o3 = await ex.run({ catalog: 'paimon', procedure: 'probe', args: named(['table', str('db.t')], ['timeout', str('x')]), statement: '' }, caller, new AbortController().signal);
    assert.ok(!o3.ok && o3.error.code === 'ARGUMENT_TYPE');
  });

  test('the docs table and SHOW PROCEDURES rows come from the declarations', () => {
    const reg = executor.registry;
    const md = renderProcedureTable(reg);
    assert.ok(md.includes('`resolve_probe`, `probe`'));
    assert.ok(md.includes('retain_min INT = 1'));
    const rows = procedureListing(reg);
    assert.deepEqual(rows.map((r) => r[0]), ['expire_like', 'resolve_probe']);
  });
});
