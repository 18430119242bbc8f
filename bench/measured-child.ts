/**
 * A benchmark's child process, measured: its wall time, its peak RSS (VmHWM polled every 50 ms,
 * unless the child reports its own `peakRssBytes`), and its last stdout line as JSON.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { parseJson } from '../src/paimon/spec/json.js';

export interface Measured {
  out: Record<string, unknown>;
  wallMs: number;
  peakRssBytes: number | null;
}

export function measured(cmd: string, args: string[], what: string, opts: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<Measured> {
  return new Promise((res, rej) => {
    const t0 = performance.now();
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...(opts.env !== undefined ? { env: opts.env } : {}) });
    let stdout = '';
    let stderr = '';
    let peak: number | null = null;
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (stderr.length > 1_000_000) stderr = stderr.slice(-200_000);
    });
    const poll = setInterval(() => {
      try {
        const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        if (m) peak = Math.max(peak ?? 0, Number(m[1]) * 1024);
      } catch {
        // exited between polls
      }
    }, 50);
    const killer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 2 * 3_600_000);
    child.on('close', (code) => {
      clearInterval(poll);
      clearTimeout(killer);
      const wallMs = performance.now() - t0;
      const last = stdout.trim().split('\n').pop() ?? '';
      if (code !== 0 || last === '') {
        rej(new Error(`${what} exited with ${String(code)}: ${stderr.split('\n').filter((l) => /error|Exception|^\s+at /i.test(l)).slice(0, 12).join(' | ')}`));
        return;
      }
      const out = parseJson(last, what) as Record<string, unknown>;
      res({ out, wallMs, peakRssBytes: typeof out.peakRssBytes === 'number' ? out.peakRssBytes : peak });
    });
  });
}

/**
 * The child's side: prints its result as the last stdout line, with its own peak RSS (VmHWM) and
 * the result row (long strings left out), and exits.
 */
export function reportAndExit(result: Record<string, unknown>, row: Record<string, unknown>): never {
  const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
  const slim = Object.fromEntries(Object.entries(row).filter(([, v]) => typeof v !== 'string' || v.length < 200));
  console.log(JSON.stringify({ ...result, peakRssBytes: hwm ? Number(hwm[1]) * 1024 : null, row: slim }, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)));
  process.exit(0);
}
