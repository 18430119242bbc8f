/**
 * No test secret may appear in any log or audit file. Self-contained: this file first drives
 * every writer of the ops layer with secrets (the proxy's logger, the audit file, the FE
 * refresher's failure, a job store, a config dump, errors that echo credentials), then scans
 * every proxy log and audit file under $TEST_TMP, including those other test files have
 * written so far. tests/run.sh can run the same scan once more after the whole suite
 * (ops-secrets-scan.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readFileSync, writeFileSync } from 'node:fs';
import { createLogger } from '../../src/observability/logger.js';
import { FileAuditSink, runAudited } from '../../src/observability/audit.js';
import { FeRefresher } from '../../src/fe-refresh.js';
import { registerSecretsFrom, mask } from '../../src/security/masking.js';
import { configSchema } from '../../src/config-schema.js';
import { FileJobStore } from '../../procedures/framework/jobs/file-job-store.js';
import { JobManager } from '../../procedures/framework/jobs/job-manager.js';
import { ProcedureError } from '../../procedures/framework/errors.js';
import { scanForSecrets, knownTestSecrets, TEST_SECRET_PREFIX } from './ops-secrets-scan.js';
import { scratchDir, testSecret } from './ops-env.js';

test('no test secret in any log or audit file of the run', async () => {
  const dir = scratchDir('ops-secrets');
  const s3Secret = testSecret('s3');
  const refreshPassword = testSecret('refresh');
  const argSecret = testSecret('arg');
  const config = configSchema.parse({
    upstream: { host: '127.0.0.1', port: 1, refresh_user: 'refresher', refresh_password: refreshPassword },
    catalogs: [{ name: 'paimon', warehouse: 's3://bucket/wh', properties: { 's3.access-key': 'AKIAEXAMPLE', 's3.secret-key': s3Secret } }],
    audit: { file: join(dir, 'audit.jsonl'), mysql: { host: '127.0.0.1', user: 'a', password: testSecret('auditdb'), database: 'd' } },
  });
  registerSecretsFrom(config);

  const logFile = join(dir, 'proxy.log');
  const log = createLogger({ level: 'debug', file: logFile });
  log.info({ config }, 'configuration loaded');
  log.info(`CALL paimon.sys.create_tag(table => 'db.t', tag => 'x', options => 's3.secret-key=${argSecret}')`);
  log.warn({ err: new Error(`S3 rejected key ${s3Secret}`) }, 'storage error');
  log.child({ session: { password: refreshPassword } }).debug('child bindings');

  const audit = new FileAuditSink(config.audit.file!);
  await assert.rejects(runAudited(audit, {
    connectionId: 9, user: 'ops', clientAddress: '127.0.0.1:1', catalog: 'paimon', procedure: 'create_tag',
    arguments: { table: 'db.t', options: `s3.secret-key=${argSecret}`, token: argSecret },
    statement: `CALL paimon.sys.create_tag(table => 'db.t', options => 's3.secret-key=${argSecret}', token => '${argSecret}')`,
  }, async () => { throw new ProcedureError('STORAGE_ERROR', `access denied for secret ${s3Secret}`); }));
  await audit.close();

  const refresher = new FeRefresher({ host: '127.0.0.1', port: 1, user: 'refresher', password: refreshPassword, connectTimeoutMs: 300 });
  const warnings = await refresher.refresh('paimon', ['db.t']);
  await refresher.close();
  log.warn({ warnings }, 'refresh warnings');

  const jobs = new JobManager({ redact: mask, store: new FileJobStore({ dir: join(dir, 'jobs'), retentionMs: 1e9, owner: 'p' }), owner: 'p' });
  await jobs.open();
  const job = await jobs.submit({ catalog: 'paimon', procedure: 'compact', arguments: mask({ options: `s3.secret-key=${argSecret}` }), statement: null, user: 'ops', clientAddress: 'x', connectionId: 1, heavy: false },
    async () => { throw new Error(`failed with password=${refreshPassword}`); });
  await jobs.whenFinished(job.id);
  log.info({ job: await jobs.get(job.id) }, 'job finished');
  await jobs.close();
  await new Promise<void>((resolve) => log.flush(() => resolve()));
  await new Promise((r) => setTimeout(r, 100));

  // The writers did write what they were given (the scan below would be empty otherwise).
  assert.match(readFileSync(logFile, 'utf8'), /configuration loaded/);
  assert.match(readFileSync(join(dir, 'audit.jsonl'), 'utf8'), /create_tag/);

  const root = process.env.TEST_TMP ?? dir;
  const secrets = [...knownTestSecrets(), s3Secret, refreshPassword, argSecret];
  const r = scanForSecrets(root, secrets);
  assert.ok(r.scanned.includes(logFile) && r.scanned.includes(join(dir, 'audit.jsonl')), `scanned: ${r.scanned.join(', ')}`);
  assert.deepEqual(r.leaks.map((l) => `${l.file}:${l.line} (secret #${l.secretIndex})`), []);

  // The scan itself can fail: a planted secret in a proxy-style log is found.
  const planted = join(dir, 'planted.log');
  writeFileSync(planted, JSON.stringify({ level: 30, time: 1, msg: `oops ${TEST_SECRET_PREFIX}planted` }) + '\n');
  const found = scanForSecrets(dir, secrets).leaks.filter((l) => l.file === planted);
  assert.equal(found.length, 1);
  writeFileSync(planted, '');
});
