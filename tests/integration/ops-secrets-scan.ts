/**
 * Finds test secrets in the log and audit files of a test run. Used by
 * ops-secrets-scan.test.ts, and runnable after the whole suite:
 *   node --import tsx tests/integration/ops-secrets-scan.ts "$TEST_TMP"
 * (exit 1 and the file names when a secret is found; the secrets themselves are not printed).
 *
 * A file counts as a log or audit file when its name says so (*.log, *.jsonl, *.ndjson, or
 * "audit" in the name) and it was written by the proxy: JSON lines with pino's `level`/`msg`
 * or an audit record's `queryId`/`procedure`, or a trace span's `traceId`/`spanId`, or any file with "audit" in its name. Logs of the
 * peers (MariaDB, moto, Java) are theirs, not the proxy's, and are not judged here.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, basename } from 'node:path';
import { fileURLToPath } from 'node:url';

export const TEST_SECRET_PREFIX = 'pp-test-secret-';

/** The secrets of this run: every value starting with the prefix, plus the peers' passwords. */
export function knownTestSecrets(env: NodeJS.ProcessEnv = process.env): string[] {
  const out = [TEST_SECRET_PREFIX];
  for (const k of ['MARIADB_PASSWORD', 'S3_SECRET_KEY']) {
    const v = env[k];
    if (v && v.length >= 6) out.push(v);
  }
  return out;
}

function isProxyLogOrAudit(path: string, head: string): boolean {
  const name = basename(path).toLowerCase();
  if (name.includes('audit')) return true;
  if (!/\.(log|jsonl|ndjson)$/.test(name)) return false;
  const first = head.split('\n', 1)[0] ?? '';
  try {
    const o = JSON.parse(first) as Record<string, unknown>;
    // pino log lines, audit records, job records, trace spans (tracing.file).
    return ('level' in o && ('msg' in o || 'time' in o)) || ('queryId' in o && 'procedure' in o) || ('procedure' in o && 'state' in o) || ('traceId' in o && 'spanId' in o);
  } catch {
    return false;
  }
}

export interface ScanResult {
  scanned: string[];
  leaks: { file: string; secretIndex: number; line: number }[];
}

export function scanForSecrets(root: string, secrets: readonly string[] = knownTestSecrets()): ScanResult {
  const result: ScanResult = { scanned: [], leaks: [] };
  const walk = (dir: string, depth: number): void => {
    if (depth > 12) return;
    let entries: string[];
    try {
      entries = readdirSync(dir);
    } catch {
      return;
    }
    for (const e of entries) {
      const p = join(dir, e);
      let st;
      try {
        st = statSync(p);
      } catch {
        continue;
      }
      if (st.isDirectory()) {
        if (e === 'node_modules' || e.startsWith('.venv')) continue;
        walk(p, depth + 1);
      } else if (st.isFile() && st.size > 0 && st.size < 256 * 1024 * 1024) {
        let text: string;
        try {
          text = readFileSync(p, 'utf8');
        } catch {
          continue;
        }
        if (!isProxyLogOrAudit(p, text.slice(0, 4096))) continue;
        result.scanned.push(p);
        secrets.forEach((s, i) => {
          const at = text.indexOf(s);
          if (at >= 0) result.leaks.push({ file: p, secretIndex: i, line: text.slice(0, at).split('\n').length });
        });
      }
    }
  };
  walk(root, 0);
  return result;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const root = process.argv[2] ?? process.env.TEST_TMP;
  if (!root) {
    console.error('usage: ops-secrets-scan.ts <dir>');
    process.exit(2);
  }
  const r = scanForSecrets(root);
  for (const l of r.leaks) console.error(`secret #${l.secretIndex} found in ${l.file}:${l.line}`);
  console.log(`secret scan: ${r.scanned.length} log/audit files scanned, ${r.leaks.length} leaks`);
  process.exit(r.leaks.length > 0 ? 1 : 0);
}
