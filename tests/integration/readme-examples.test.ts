/**
 * The README's examples run as written, against the embedded default (`serve` with no FE, the
 * demo table in an empty warehouse) and the `call` one-shot command.
 *
 * Which fenced blocks are examples: a block right after an `<!-- example -->` comment when
 * the README has such markers; until it does, the ```sql blocks and the mariadb/mysql CLI ```sh
 * block of the "Try it" section, and every ```yaml block (a configuration, validated by the
 * schema). The opening CALLs on `sales.orders` illustrate, they are not run. The inline `call` command of "Try it" is run too. Deviations from "as written", and
 * why: the proxy listens on a free port instead of 9031 (tests run in parallel), so `-P9031` is
 * replaced by that port; the CLI gets the SQL block on its standard input (the README runs the
 * SQL in the CLI's interactive session).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';
import { configSchema } from '../../src/config-schema.js';
import { run, startChildProxy, type ChildProxy } from './wire-helpers.js';
import { tempDir } from '../support/temp-dir.js';

const ROOT = join(import.meta.dirname, '..', '..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

interface Block {
  lang: string;
  body: string;
  line: number;
}

function fencedBlocks(md: string): (Block & { marked: boolean })[] {
  const out: (Block & { marked: boolean })[] = [];
  const lines = md.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    let j = i + 1;
    while (j < lines.length && !/^```\s*$/.test(lines[j]!)) j++;
    let k = i - 1;
    while (k >= 0 && lines[k]!.trim() === '') k--;
    out.push({ lang: open[1]!, body: lines.slice(i + 1, j).join('\n'), line: i + 1, marked: k >= 0 && /<!--\s*example\b/.test(lines[k]!) });
    i = j;
  }
  return out;
}

const ALL = fencedBlocks(README);
/** Line range of the "Try it" section (its heading to the next heading of any level). */
function section(md: string, heading: RegExp): [number, number] {
  const lines = md.split('\n');
  const start = lines.findIndex((l) => heading.test(l));
  if (start < 0) return [0, 0];
  const next = lines.findIndex((l, i) => i > start && /^#{1,6}\s/.test(l));
  return [start + 1, next < 0 ? lines.length : next + 1];
}
const [TRY_FROM, TRY_TO] = section(README, /^#{2,4}\s+Try it\s*$/);
const EXAMPLES: Block[] = ALL.some((b) => b.marked)
  ? ALL.filter((b) => b.marked)
  : ALL.filter(
      (b) =>
        b.lang === 'yaml' ||
        (b.line > TRY_FROM && b.line < TRY_TO && (b.lang === 'sql' || (b.lang === 'sh' && /^(mariadb|mysql)\s/.test(b.body.trim())))),
    );

/** SQL statements of a block, one per `;`, comments dropped. */
function statements(sql: string): string[] {
  return sql
    .split('\n')
    .map((l) => l.replace(/--.*$/, '').trim())
    .join('\n')
    .split(/;\s*(?:\n|$)/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** `mariadb -h127.0.0.1 -P9031 -uroot  # or: mysql ...` -> each command of the line. */
function cliCommands(sh: string): string[][] {
  const line = sh.trim();
  const [first, comment] = line.split(/\s+#\s*/);
  const cmds = [first!];
  const alt = /^or:\s*(.*)$/.exec(comment ?? '');
  if (alt) cmds.push(alt[1]!);
  return cmds.map((c) => c.trim().split(/\s+/));
}

describe('README examples', () => {
  let dir: string;
  let proxy: ChildProxy;
  const withPort = (argv: string[]) => argv.map((a) => a.replace(/^-P9031$/, `-P${proxy.port}`));

  before(async () => {
    dir = tempDir('readme-examples');
    proxy = await startChildProxy([], { PPP_WAREHOUSE: join(dir, 'warehouse') });
    assert.match(proxy.log(), /created the demo table paimon\.demo\.orders/);
  });
  after(async () => {
    await proxy?.stop();
  });

  test('the README has the examples this test knows how to run', () => {
    assert.ok(EXAMPLES.some((b) => b.lang === 'sql'), 'a SQL example');
    assert.ok(EXAMPLES.some((b) => b.lang === 'sh'), 'a CLI example');
  });

  // The "Try it" SQL goes through the CLI command before it, in one session, in order.
  const cli = EXAMPLES.find((b) => b.lang === 'sh');
  const sqlBlocks = EXAMPLES.filter((b) => b.lang === 'sql');
  for (const block of sqlBlocks) {
    test(`README line ${block.line}: every statement of the SQL block runs in the CLI of line ${cli?.line}`, async () => {
      assert.ok(cli, 'a CLI command to run the SQL with');
      for (const argv of cliCommands(cli.body)) {
        const [cmd, ...args] = withPort(argv);
        // one statement per run, so a failure names its statement; --batch: tab-separated output
        for (const sql of statements(block.body)) {
          const r = await run(cmd!, ['--no-defaults', ...args, '--batch', '--skip-ssl', '-e', sql], { cwd: dir });
          assert.equal(r.code, 0, `${cmd}: ${sql}\n${r.stderr}`);
        }
      }
    });
  }

  test('the one-shot `call` command of "Try it" prints JSON', async () => {
    const m = /`npx paimon-procedure-proxy call "([^"]+)" --json`/.exec(README);
    assert.ok(m, 'the README shows the call command');
    // `node --import tsx src/cli.ts call ...` is the README's own alternative to the built npx binary
    const r = await run(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli.ts'), 'call', m[1]!, '--json'], { cwd: dir, env: { ...process.env, PPP_CONFIG: '' } });
    assert.equal(r.code, 0, r.stderr);
    const doc = JSON.parse(r.stdout) as { rows?: unknown[] };
    assert.ok(Array.isArray(doc.rows) && doc.rows.length === 1, r.stdout);
  });

  for (const block of EXAMPLES.filter((b) => b.lang === 'yaml')) {
    test(`README line ${block.line}: the configuration example is valid`, () => {
      const parsed = configSchema.safeParse(YAML.parse(block.body));
      assert.ok(parsed.success, parsed.success ? '' : JSON.stringify(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`)));
    });
  }
});
