/**
 * Every procedure the proxy has (the default registry plus the job procedures, so procedures
 * added later join by themselves) called by every client we claim to work with: MySQL Connector/J 8.4 and 9.x,
 * MariaDB Connector/J 3.x (jdbc/ClientMatrix.java, one JVM per driver and proxy mode), mysql2,
 * and the `mysql` CLI of Debian, which is MariaDB's client (`mariadb`). Each CALL runs as a
 * plain statement and server-side prepared (Connector/J useServerPrepStmts=true, MariaDB
 * Connector/J likewise, mysql2 execute), and compact also as a JDBC CallableStatement
 * `{call paimon.sys.compact(...)}`. Every result set, warning (getWarnings and SHOW WARNINGS) and
 * OK is read; all clients in all modes must see the same outcome per CALL (the same column
 * labels and row count, or the same errno), in standalone mode and relayed in front of MariaDB.
 * Calls are dry runs (or create and drop their own tags/branches), so the demo table stays put.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { createDefaultRegistry } from '../../procedures/index.js';
import { createFileIO } from '../../src/paimon/fs/file-io-factory.js';
import { ensureDemoTable } from '../../src/paimon/table/demo-table.js';
import { silentLogger } from '../../src/observability/logger.js';
import { startProxy, type RunningProxy } from '../../src/proxy-app.js';
import { mariadb, proxyConfig, run } from './wire-helpers.js';
import { tempDir } from '../support/temp-dir.js';

const ROOT = join(import.meta.dirname, '..', '..');
const LIB = join(ROOT, 'tests/integration/jdbc/lib');
const PROGRAM = join(ROOT, 'tests/integration/jdbc/ClientMatrix.java');
const TABLE = 'demo.orders';

interface ProcedureRow {
  name: string;
  params: { name: string; type: string; required: boolean }[];
}

/**
 * Arguments per procedure (named-argument form). `u` is unique per client and mode, for the
 * procedures that create something. A procedure missing here gets arguments built from its
 * signature (argsFromSignature); SKIPPED lists those that cannot be called safely at all.
 */
const ARGS: Record<string, (u: string) => string> = {
  expire_snapshots: () => `table => '${TABLE}', retain_max => 2, retain_min => 1, dry_run => true`,
  rollback_to: () => `table => '${TABLE}', snapshot_id => 3, dry_run => true`,
  rollback: () => `table => '${TABLE}', version => '3', dry_run => true`,
  rollback_to_timestamp: () => `table => '${TABLE}', \`timestamp\` => ${Date.now()}, dry_run => true`,
  rollback_to_as_latest: () => `table => '${TABLE}', snapshot_id => 3, dry_run => true`,
  remove_orphan_files: () => `table => '${TABLE}', dry_run => true`,
  compact: () => `table => '${TABLE}', dry_run => true`,
  // tags and branches: each client and mode creates its own, renames, inspects and drops them
  create_tag: (u) => `table => '${TABLE}', tag => '${u}_t', snapshot_id => 1`,
  create_tag_from_timestamp: (u) => `table => '${TABLE}', tag => '${u}_ts', \`timestamp\` => 0`,
  create_branch: (u) => `table => '${TABLE}', branch => '${u}_b', tag => '${u}_t'`,
  rename_tag: (u) => `table => '${TABLE}', tag => '${u}_t', target_tag => '${u}_t2'`,
  replace_tag: (u) => `table => '${TABLE}', tag => '${u}_t2', snapshot_id => 3, dry_run => true`,
  expire_tags: () => `table => '${TABLE}', dry_run => true`,
  rename_branch: (u) => `table => '${TABLE}', from_branch => '${u}_b', to_branch => '${u}_b2'`,
  fast_forward: (u) => `table => '${TABLE}', branch => '${u}_b2', force => true, dry_run => true`,
  merge_branch: (u) => `table => '${TABLE}', source_branch => '${u}_b2', dry_run => true`,
  delete_tag: (u) => `table => '${TABLE}', tag => '${u}_t2,${u}_ts'`,
  delete_branch: (u) => `table => '${TABLE}', branch => '${u}_b2'`,
  list_jobs: () => '',
  job_status: () => `'no-such-job'`,
  cancel_job: () => `'no-such-job'`,
};
const SKIPPED: readonly string[] = [];
/** Calls of ARGS that fail by design, with their errno. */
const EXPECTED_ERRORS: Record<string, number> = {
  job_status: 1105, // no such job
  cancel_job: 1105,
  merge_branch: 1235, // NOT_SUPPORTED: Paimon merges branches of append-only tables; demo.orders has a primary key
};

/** Arguments for a procedure this file does not know yet: its required parameters from their names and types, dry_run when it has one. */
function argsFromSignature(p: ProcedureRow, u: string): string | null {
  const out: string[] = [];
  for (const a of p.params) {
    const n = a.name.toLowerCase();
    let v: string | null = null;
    if (n === 'dry_run') v = 'true';
    else if (!a.required) continue;
    else if (n === 'table') v = `'${TABLE}'`;
    else if (n.includes('tag') || n.includes('branch') || n.includes('name')) v = `'${u}_${n}'`;
    else if (n.includes('snapshot')) v = '2';
    else if (n.includes('time')) v = String(Date.now());
    else if (/^(big)?int$/i.test(a.type)) v = '1';
    else return null;
    out.push(`\`${a.name}\` => ${v}`);
  }
  return out.join(', ');
}

/**
 * Run order, so one client's run is self-contained: tags are created before the branch made
 * from one, both are renamed before they are replaced, fast-forwarded or merged (dry runs), and
 * dropped last.
 */
function order(name: string): number {
  if (/^create_tag/.test(name)) return 0;
  if (/^create_/.test(name)) return 1;
  if (/^rename_/.test(name)) return 2;
  if (/^(delete|drop)_/.test(name)) return 4;
  return 3;
}

interface Statement {
  id: string;
  mode: 'plain' | 'prepared' | 'callable';
  sql: string;
  params?: string[];
}

/** What every client must agree on for one statement. */
type Outcome = string;

function outcomeOf(r: { error: [number, string, string] | null; results: ({ columns: [string, string][]; rows: unknown[][] } | { updateCount: number })[] }): Outcome {
  if (r.error) return `ERR ${r.error[0]}`;
  const sets = r.results.filter((x): x is { columns: [string, string][]; rows: unknown[][] } => 'columns' in x);
  return sets.map((s) => `${s.columns.map((c) => c[0]).join(',')} x${s.rows.length}`).join(' | ');
}

/** The statements of one client run: every procedure plain and prepared, compact also as a JDBC call escape. */
function statementsFor(procs: ProcedureRow[], prefix: string, callable: boolean): { statements: Statement[]; skipped: string[] } {
  const statements: Statement[] = [];
  const skipped: string[] = [];
  for (const p of [...procs].sort((a, b) => order(a.name) - order(b.name))) {
    if (SKIPPED.includes(p.name)) {
      skipped.push(p.name);
      continue;
    }
    for (const mode of ['plain', 'prepared'] as const) {
      const u = `cm_${prefix}_${mode}`.replace(/[^a-z0-9_]/gi, '_');
      const args = ARGS[p.name]?.(u) ?? argsFromSignature(p, u);
      if (args === null) {
        if (mode === 'plain') skipped.push(p.name);
        continue;
      }
      // prepared: the table is a placeholder, bound by the client
      const bind = mode === 'prepared' && args.includes(`'${TABLE}'`);
      const sql = `CALL paimon.sys.${p.name}(${bind ? args.replace(`'${TABLE}'`, '?') : args})`;
      statements.push({ id: `${p.name}/${mode}`, mode, sql, ...(bind ? { params: [TABLE] } : {}) });
    }
  }
  if (callable) statements.push({ id: 'compact/callable', mode: 'callable', sql: '{call paimon.sys.compact(table => ?, dry_run => true)}', params: [TABLE] });
  return { statements, skipped };
}

interface ClientRun {
  client: string;
  outcomes: Map<string, Outcome>;
  /** Anything a client reported besides the outcome that the test checks (warnings, info). */
  raw: Map<string, unknown>;
}

const JDBC = [
  { client: 'connector-j-8.4', jar: () => process.env.CONNECTOR_J_JAR ?? join(LIB, 'mysql-connector-j-8.4.0.jar'), url: (port: number, db: string) => `jdbc:mysql://127.0.0.1:${port}/${db}?sslMode=DISABLED&useServerPrepStmts=true`, callable: true },
  { client: 'connector-j-9', jar: () => process.env.CONNECTOR_J9_JAR ?? join(LIB, 'mysql-connector-j-9.7.0.jar'), url: (port: number, db: string) => `jdbc:mysql://127.0.0.1:${port}/${db}?sslMode=DISABLED&useServerPrepStmts=true`, callable: true },
  // default settings: the driver's first statement, `set sql_mode=CONCAT(@@sql_mode,...),
  // session_track_system_variables=CONCAT(..., IF(LOCATE(...))),session_track_schema=1,NAMES utf8mb4`,
  // is accepted in standalone mode too
  { client: 'mariadb-connector-j-3', jar: () => process.env.MARIADB_CONNECTOR_J_JAR ?? join(LIB, 'mariadb-java-client-3.5.11.jar'), url: (port: number, db: string) => `jdbc:mariadb://127.0.0.1:${port}/${db}?useServerPrepStmts=true`, callable: true },
] as const;

async function runJdbc(j: (typeof JDBC)[number], port: number, db: string, user: string, password: string, statements: Statement[], dir: string): Promise<ClientRun> {
  const file = join(dir, `${j.client}.json`);
  writeFileSync(file, JSON.stringify(statements));
  const r = await run('java', ['-cp', j.jar(), PROGRAM, j.url(port, db), user, password, file], { timeoutMs: 120_000 });
  assert.equal(r.code, 0, `${j.client}: ${r.stderr}`);
  const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { id: string; error: [number, string, string] | null; results: never[]; warnings: unknown; showWarnings: unknown });
  assert.equal(lines.length, statements.length + 1, `${j.client} printed one line per statement: ${r.stdout}`);
  const outcomes = new Map<string, Outcome>();
  const raw = new Map<string, unknown>();
  for (const l of lines.slice(1)) {
    outcomes.set(l.id, outcomeOf(l));
    raw.set(l.id, l);
  }
  return { client: j.client, outcomes, raw };
}

async function runMysql2(port: number, db: string, user: string, password: string, statements: Statement[]): Promise<ClientRun> {
  const c = await mysql.createConnection({ host: '127.0.0.1', port, user, password, database: db, supportBigNumbers: true, bigNumberStrings: true, dateStrings: true });
  const outcomes = new Map<string, Outcome>();
  const raw = new Map<string, unknown>();
  try {
    for (const s of statements.filter((x) => x.mode !== 'callable')) {
      try {
        const [res, fields] = s.mode === 'prepared' ? await c.execute(s.sql, s.params ?? []) : await c.query(s.sql);
        // a CALL answers with its result sets and then the final OK (ResultSetHeader)
        const parts = Array.isArray(fields) && Array.isArray(res) ? (res as unknown[]) : [res];
        const fieldSets = (Array.isArray(fields) ? fields : []) as unknown as ({ name: string }[] | undefined)[];
        const sets = parts
          .map((p, i) => ({ p, f: fieldSets[i] }))
          .filter((x) => Array.isArray(x.p) && Array.isArray(x.f))
          .map((x) => ({ columns: x.f!.map((f) => [f.name, ''] as [string, string]), rows: x.p as unknown[][] }));
        const ok = parts.find((p) => !Array.isArray(p)) as { info?: string; warningStatus?: number } | undefined;
        const [warnings] = await c.query('SHOW WARNINGS');
        outcomes.set(s.id, outcomeOf({ error: null, results: sets }));
        raw.set(s.id, { info: ok?.info, warningStatus: ok?.warningStatus, showWarnings: warnings });
      } catch (e) {
        const x = e as { errno?: number; sqlState?: string; message: string };
        if (x.errno === undefined) throw e;
        outcomes.set(s.id, `ERR ${x.errno}`);
        const [warnings] = await c.query('SHOW WARNINGS');
        raw.set(s.id, { showWarnings: warnings });
      }
    }
  } finally {
    await c.end();
  }
  return { client: 'mysql2', outcomes, raw };
}

/** Debian's `mysql` is MariaDB's client; one process per statement (no JVM, so cheap), warnings shown. */
async function runCli(port: number, db: string, user: string, password: string, statements: Statement[]): Promise<ClientRun> {
  const outcomes = new Map<string, Outcome>();
  const raw = new Map<string, unknown>();
  for (const s of statements.filter((x) => x.mode === 'plain')) {
    const r = await run('mysql', ['--no-defaults', '-h127.0.0.1', `-P${port}`, `-u${user}`, ...(password ? [`-p${password}`] : []), '--skip-ssl', '--batch', '--show-warnings', db, '-e', s.sql]);
    if (r.code !== 0) {
      const m = /^ERROR (\d+) \(\w{5}\)/m.exec(r.stderr);
      assert.ok(m, `mysql CLI: ${r.stderr}`);
      outcomes.set(s.id, `ERR ${m[1]}`);
      continue;
    }
    // the result set (header + rows), then "Warning (Code n): ..." lines from --show-warnings
    const lines = r.stdout.split('\n').filter((l) => l.length > 0 && !/^(Note|Warning|Error) \(Code \d+\)/.test(l));
    const warnings = r.stdout.split('\n').filter((l) => /^(Note|Warning|Error) \(Code \d+\)/.test(l));
    outcomes.set(s.id, lines.length === 0 ? '' : `${lines[0]!.split('\t').join(',')} x${lines.length - 1}`);
    raw.set(s.id, { warnings });
  }
  return { client: 'mysql-cli', outcomes, raw };
}

/**
 * The procedures to call: the default registry's (procedures/index.ts, so new families join by
 * themselves) plus the job procedures, which proxy-app registers beside it with its JobManager.
 */
function procedures(): ProcedureRow[] {
  const rows: ProcedureRow[] = createDefaultRegistry()
    .list()
    .map((p) => ({ name: p.signature.name, params: p.signature.params.map((a) => ({ name: a.name, type: a.type, required: a.required === true })) }));
  for (const name of ['list_jobs', 'job_status', 'cancel_job']) if (!rows.some((r) => r.name === name)) rows.push({ name, params: [] });
  return rows;
}

describe('client matrix: every procedure through every client', () => {
  let warehouse: string;
  let standalone: RunningProxy;
  let relay: RunningProxy;
  let procs: ProcedureRow[];
  /** Each mode's client runs, for the warnings and info test after them. */
  const runsByMode = new Map<string, ClientRun[]>();

  before(async () => {
    warehouse = tempDir('clients-matrix-wh');
    const demo = await ensureDemoTable(warehouse, createFileIO(warehouse));
    assert.equal(demo.created, true);
    const catalogs = [{ name: 'paimon', type: 'filesystem', warehouse }];
    standalone = await startProxy(proxyConfig({ catalogs, jobs: { dir: tempDir('clients-matrix-jobs-s') } }, { upstream: false }), { logger: silentLogger() });
    relay = await startProxy(proxyConfig({ catalogs, jobs: { dir: tempDir('clients-matrix-jobs-r') } }), { logger: silentLogger() });
    procs = procedures();
  });
  after(async () => {
    await standalone?.close();
    await relay?.close();
  });

  for (const mode of ['standalone', 'relay'] as const) {
    test(`${mode}: every client reads the same results, warnings and errors of every CALL`, async (t) => {
      const port = (mode === 'standalone' ? standalone : relay).address.port;
      const db = mode === 'standalone' ? 'demo' : 'proxytest';
      const user = mode === 'standalone' ? 'root' : mariadb().user;
      const password = mode === 'standalone' ? '' : mariadb().password;
      const dir = tempDir(`clients-matrix-${mode}`);
      const runs: ClientRun[] = [];
      const skippedAll = new Set<string>();
      // the JVMs run one after another: two cores are shared with the rest of the suite
      for (const j of JDBC) {
        const { statements, skipped } = statementsFor(procs, `${mode}_${j.client}`, j.callable);
        skipped.forEach((s) => skippedAll.add(s));
        runs.push(await runJdbc(j, port, db, user, password, statements, dir));
      }
      runs.push(await runMysql2(port, db, user, password, statementsFor(procs, `${mode}_mysql2`, false).statements));
      runs.push(await runCli(port, db, user, password, statementsFor(procs, `${mode}_cli`, false).statements));
      runsByMode.set(mode, runs);
      // everything each client read, for a look after a failure
      writeFileSync(join(dir, 'runs.json'), JSON.stringify(runs.map((r) => ({ client: r.client, outcomes: [...r.outcomes], raw: [...r.raw] })), null, 1));
      if (skippedAll.size > 0) t.diagnostic(`procedures not called (no safe arguments): ${[...skippedAll].join(', ')}`);

      // the reference: mysql2's plain query of each procedure
      const reference = runs.find((r) => r.client === 'mysql2')!;
      const names = procs.map((p) => p.name).filter((n) => !skippedAll.has(n));
      assert.ok(names.length >= 7, `at least the seven maintenance procedures: ${names.join(', ')}`);
      const mismatches: string[] = [];
      for (const name of names) {
        const expected = reference.outcomes.get(`${name}/plain`);
        assert.ok(expected !== undefined, `mysql2 ran ${name}`);
        for (const r of runs) {
          for (const m of ['plain', 'prepared']) {
            const got = r.outcomes.get(`${name}/${m}`);
            if (got === undefined) continue; // the CLI has no prepared form
            // the CLI in --batch mode prints nothing, not even the header, for a result set of no rows
            if (r.client === 'mysql-cli' && got === '' && / x0$/.test(expected)) continue;
            if (got !== expected) mismatches.push(`${r.client} ${m} CALL ${name}: ${got} (mysql2: ${expected})`);
          }
        }
      }
      assert.deepEqual(mismatches, [], `(${mode})`);
      for (const name of names) {
        const o = reference.outcomes.get(`${name}/plain`) ?? '';
        t.diagnostic(`${name}: ${o.length > 70 ? `${o.slice(0, 50)}…${/ x\d+$/.exec(o)?.[0] ?? ''}` : o}`);
      }
      for (const r of runs) {
        const c = r.outcomes.get('compact/callable');
        if (c !== undefined) t.diagnostic(`${r.client} {call paimon.sys.compact(...)}: ${c.slice(0, 60)}`);
      }
      // every procedure with arguments from ARGS answers a result set, except those of
      // EXPECTED_ERRORS, whose errors every client reads with the same errno
      const failed = names.filter((n) => ARGS[n] && !(n in EXPECTED_ERRORS) && /^ERR/.test(reference.outcomes.get(`${n}/plain`) ?? 'ERR missing'));
      assert.deepEqual(failed, [], `(${mode})`);
      for (const [n, errno] of Object.entries(EXPECTED_ERRORS)) if (names.includes(n)) assert.equal(reference.outcomes.get(`${n}/plain`), `ERR ${errno}`, n);
      // CallableStatement {call ...}: MariaDB Connector/J sends it as a CALL; the result is compact's.
      // MySQL Connector/J first asks for the procedure's metadata (SHOW PROCEDURE STATUS), which the
      // FE answers (empty) when relayed and the standalone proxy answers empty too.
      for (const r of runs.filter((x) => x.outcomes.has('compact/callable'))) {
        assert.equal(r.outcomes.get('compact/callable'), reference.outcomes.get('compact/plain'), `${r.client} {call paimon.sys.compact(...)} (${mode})`);
      }
      // warnings: every JDBC driver reads the same getWarnings and SHOW WARNINGS as the others, and
      // SHOW WARNINGS as mysql2 does (names of each run's own tags and branches aside)
      const norm = (x: unknown) => JSON.stringify(x ?? null).replace(/cm_[A-Za-z0-9_]*?_(plain|prepared)/g, 'cm');
      const jdbcRuns = runs.filter((x) => x.client.includes('connector'));
      const diagnostics: string[] = [];
      for (const name of names) {
        for (const m of ['plain', 'prepared']) {
          const ref = reference.raw.get(`${name}/${m}`) as { showWarnings?: Record<string, unknown>[] } | undefined;
          const refShow = ref?.showWarnings?.map((w) => [w['Level'], Number(w['Code']), w['Message']]);
          const first = jdbcRuns[0]!.raw.get(`${name}/${m}`) as { showWarnings: unknown; warnings: unknown };
          for (const r of jdbcRuns) {
            const x = r.raw.get(`${name}/${m}`) as { showWarnings: unknown; warnings: unknown; error: unknown };
            if (norm(x.warnings) !== norm(first.warnings)) diagnostics.push(`${r.client} getWarnings of ${name}/${m}: ${norm(x.warnings)} vs ${norm(first.warnings)}`);
            if (refShow && norm(x.showWarnings) !== norm(refShow)) diagnostics.push(`${r.client} SHOW WARNINGS after ${name}/${m}: ${norm(x.showWarnings)} vs mysql2 ${norm(refShow)}`);
          }
        }
      }
      assert.deepEqual(diagnostics, [], `(${mode})`);
      // warnings: a prepared and a plain CALL leave the same SHOW WARNINGS (JDBC)
      for (const r of runs.filter((x) => x.client.includes('connector'))) {
        for (const name of names) {
          const plain = r.raw.get(`${name}/plain`) as { showWarnings: unknown; warnings: unknown } | undefined;
          const prepared = r.raw.get(`${name}/prepared`) as { showWarnings: unknown; warnings: unknown } | undefined;
          if (!plain || !prepared) continue;
          // the two calls name their own tags and branches (…_plain_… / …_prepared_…)
          const same = (w: unknown) => JSON.stringify(w).replaceAll('_prepared', '_plain');
          assert.equal(same(prepared.warnings), same(plain.warnings), `${r.client} getWarnings of ${name}`);
          assert.equal(same(prepared.showWarnings), same(plain.showWarnings), `${r.client} SHOW WARNINGS after ${name}`);
        }
      }
    });
  }
  test('the OK info and the warnings of an intercepted CALL reach every client, in both modes', (t) => {
    // delete_branch of a branch with its own data files warns (files left for remove_orphan_files)
    // and reports what it deleted in the final OK's info
    const problems: string[] = [];
    for (const [mode, runs] of runsByMode) {
      for (const r of runs) {
        for (const m of ['plain', 'prepared']) {
          const x = r.raw.get(`delete_branch/${m}`) as { info?: string; warnings?: unknown[]; showWarnings?: unknown[] } | undefined;
          if (x === undefined) continue;
          if (r.client === 'mysql2' && !/^deleted branches /.test(x.info ?? '')) problems.push(`${mode} mysql2 ${m}: info ${JSON.stringify(x.info)}`);
          if (r.client.includes('connector') && (x.warnings?.length ?? 0) === 0) problems.push(`${mode} ${r.client} ${m}: getWarnings() is empty`);
          if (r.client === 'mysql-cli' && (x.warnings?.length ?? 0) === 0) problems.push(`${mode} mysql CLI: --show-warnings printed none`);
          if (r.client !== 'mysql-cli' && (x.showWarnings?.length ?? 0) === 0) problems.push(`${mode} ${r.client} ${m}: SHOW WARNINGS is empty`);
        }
      }
    }
    if (runsByMode.size < 2) t.diagnostic('runs missing: the matrix tests failed before them');
    assert.equal(runsByMode.size, 2);
    assert.deepEqual(problems, []);
  });
});
