// A node:test reporter that writes one line per test FILE: wall time (from the runner starting the
// file's process to the process ending, so module loading and peer start-up inside the file are
// included), pass/fail, and the path. Slowest first. tests/run.sh adds it next to the spec
// reporter with its destination in $TEST_TMP/file-durations.txt (the spec output on stdout is
// unchanged). Plain JavaScript so that it loads without tsx.
import { relative } from 'node:path';

export default async function* fileDurations(source) {
  const started = new Map();
  const rows = [];
  const t0 = Date.now();
  for await (const ev of source) {
    const d = ev.data;
    // File-level events carry the file path as their name (node 20+ runner, process isolation).
    if (!d || !d.file || d.name !== d.file) continue;
    if (ev.type === 'test:dequeue') started.set(d.file, Date.now());
    else if (ev.type === 'test:complete') {
      const begin = started.get(d.file) ?? t0;
      rows.push({
        file: relative(process.cwd(), d.file),
        wallMs: Date.now() - begin,
        startMs: begin - t0,
        ok: d.details?.passed !== false,
      });
    }
  }
  rows.sort((a, b) => b.wallMs - a.wallMs);
  const total = rows.reduce((s, r) => s + r.wallMs, 0);
  yield `# per-file wall time, slowest first (sum ${(total / 1000).toFixed(1)} s over ${rows.length} files; ` +
    `run took ${((Date.now() - t0) / 1000).toFixed(1)} s)\n`;
  yield `# seconds  started_at_s  result  file\n`;
  for (const r of rows) {
    yield `${(r.wallMs / 1000).toFixed(1).padStart(9)}  ${(r.startMs / 1000).toFixed(1).padStart(12)}  ${r.ok ? 'pass' : 'FAIL'}    ${r.file}\n`;
  }
}
