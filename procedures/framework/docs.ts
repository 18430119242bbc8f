/**
 * Documentation generated from the procedure declarations (one source of truth): the
 * procedure table and, per procedure, its privilege and handling (table lock and FE refresh,
 * heavy-job cap) and its parameter and result tables for the README, the rows of
 * `SHOW PROCEDURES` (short enough for a terminal) and of `SHOW PROCEDURE <name>` (everything
 * about one procedure, framework arguments included).
 */
import type { ColumnType } from './reply.js';
import type { ProcedureRegistry } from './registry.js';
import { FRAMEWORK_PARAMS } from './jobs/async-call.js';
import { formatDefault, formatSignature, traitsOf, type ParamSpec, type ProcedureSignature } from './signature.js';

function cell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function defaultText(v: string | number | bigint | boolean | undefined): string {
  if (v === undefined) return '';
  if (typeof v === 'string') return `'${v}'`;
  return String(v);
}

/** The privilege and what the operations layer does around a call, as one paragraph. */
function handlingText(sig: ProcedureSignature): string {
  const traits = traitsOf(sig);
  const parts = [`Privilege: ${sig.privilege.privilege} on the ${sig.privilege.on}.`];
  if (sig.destructive) parts.push('Destructive: accepts `dry_run => true`.');
  if (traits.changesMetadata) parts.push('Changes metadata: locks the table while it runs and has the FE refresh it.');
  if (traits.heavy) parts.push('Heavy: counts against `procedures.max_concurrent_heavy`.');
  if (traits.callerScoped) parts.push("Scoped to the caller: acts on the caller's own jobs and calls only.");
  return parts.join(' ');
}

export function renderProcedureDoc(sig: ProcedureSignature): string {
  const lines: string[] = [];
  const names = [sig.name, ...(sig.aliases ?? [])].map((n) => `\`${n}\``).join(' / ');
  lines.push(`### ${names}`, '', sig.description, '');
  lines.push(handlingText(sig), '');
  lines.push('| # | parameter | aliases | type | required | default | description |', '| --- | --- | --- | --- | --- | --- | --- |');
  sig.params.forEach((p, i) => {
    lines.push(
      `| ${i + 1} | \`${p.name}\` | ${(p.aliases ?? []).map((a) => `\`${a}\``).join(', ')} | ${p.type.toUpperCase()} | ${p.required ? 'yes' : ''} | ${cell(defaultText(p.default))} | ${cell(p.description)} |`,
    );
  });
  lines.push('', '| result column | type | description |', '| --- | --- | --- |');
  for (const c of sig.resultColumns) lines.push(`| \`${c.name}\` | ${c.type.toUpperCase()} | ${cell(c.description)} |`);
  return lines.join('\n');
}

export function renderProcedureTable(registry: ProcedureRegistry): string {
  const lines = ['| procedure | signature | privilege | description |', '| --- | --- | --- | --- |'];
  for (const p of registry.list()) {
    const s = p.signature;
    const names = [s.name, ...(s.aliases ?? [])].map((n) => `\`${n}\``).join(', ');
    lines.push(`| ${names} | \`${cell(formatSignature(s))}\` | ${s.privilege.privilege} on ${s.privilege.on} | ${cell(s.description)} |`);
  }
  return lines.join('\n');
}

/** The longest description `SHOW PROCEDURES` shows (a terminal line with the other columns). */
export const SHORT_DESCRIPTION_CHARS = 80;

/**
 * The first sentence of a description, at most SHORT_DESCRIPTION_CHARS: parenthetical remarks
 * go first, then the sentence is cut at a word with an ellipsis.
 */
export function shortDescription(description: string, max = SHORT_DESCRIPTION_CHARS): string {
  const flat = description.replace(/\s+/g, ' ').trim();
  let first = flat.slice(0, sentenceEnd(flat));
  if (first.length > max) first = first.replace(/\s*\([^()]*\)/g, '');
  if (first.length <= max) return first;
  const room = first.slice(0, max - 1);
  const cut = room.lastIndexOf(' ');
  return `${(cut > max / 2 ? room.slice(0, cut) : room).replace(/[\s,]+$/, '')}…`;
}

/** Where the first sentence ends: the first `.`, `:` or `;` before a space (or the end) outside parentheses. */
function sentenceEnd(text: string): number {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '(') depth++;
    else if (c === ')') depth = Math.max(0, depth - 1);
    else if (depth === 0 && (c === '.' || c === ':' || c === ';') && (i + 1 === text.length || text[i + 1] === ' ')) return i;
  }
  return text.length;
}

/** Columns of `SHOW PROCEDURES`. */
export const PROCEDURE_LISTING_COLUMNS: readonly (readonly [name: string, type: ColumnType])[] = [
  ['Name', 'string'],
  ['Privilege', 'string'],
  ['Description', 'string'],
];

/** Rows of `SHOW PROCEDURES` (PROCEDURE_LISTING_COLUMNS): name, privilege, first sentence of the description. */
export function procedureListing(registry: ProcedureRegistry): (string | null)[][] {
  return registry.list().map((p) => {
    const s = p.signature;
    return [s.name, privilegeText(s), shortDescription(s.description)];
  });
}

function privilegeText(s: ProcedureSignature): string {
  return `${s.privilege.privilege} ON ${s.privilege.on.toUpperCase()}`;
}

/** Columns of `SHOW PROCEDURE <name>`. */
export const PROCEDURE_DETAIL_COLUMNS: readonly (readonly [name: string, type: ColumnType])[] = [
  ['Section', 'string'],
  ['Position', 'bigint'],
  ['Name', 'string'],
  ['Type', 'string'],
  ['Required', 'string'],
  ['Default', 'string'],
  ['Aliases', 'string'],
  ['Description', 'string'],
];

/**
 * Rows of `SHOW PROCEDURE <name>` (PROCEDURE_DETAIL_COLUMNS), `name` matched like a CALL
 * (case-insensitive, aliases too; PROCEDURE_NOT_FOUND with suggestions otherwise):
 * - `procedure`: the canonical name, its aliases and the full description;
 * - `signature`: the full signature, framework arguments included;
 * - `privilege` and `handling`: what the call needs and what the proxy does around it;
 * - `parameter`: each parameter in positional order (type, required, default, aliases);
 * - `parameter (by name only)`: the framework arguments every procedure accepts (timeout, async);
 * - `result column`: each result column in order.
 */
export function procedureDetail(
  registry: ProcedureRegistry,
  name: string,
  opts: { catalog?: string; framework?: readonly ParamSpec[] } = {},
): (string | null)[][] {
  const s = registry.get(name, opts.catalog).signature;
  const framework = (opts.framework ?? FRAMEWORK_PARAMS).filter((f) => !s.params.some((p) => p.name.toLowerCase() === f.name.toLowerCase()));
  const aliases = (p: { aliases?: readonly string[] }): string | null => (p.aliases && p.aliases.length > 0 ? p.aliases.join(', ') : null);
  const param = (section: string, p: ParamSpec, position: number | null): (string | null)[] => [
    section,
    position === null ? null : String(position),
    p.name,
    p.type.toUpperCase(),
    p.required ? 'YES' : 'NO',
    p.default !== undefined ? formatDefault(p.default) : p.required ? null : 'NULL',
    aliases(p),
    p.description,
  ];
  return [
    ['procedure', null, s.name, null, null, null, aliases(s), s.description],
    ['signature', null, s.name, null, null, null, null, formatSignature(s, framework)],
    ['privilege', null, s.name, null, null, null, null, privilegeText(s)],
    ['handling', null, s.name, null, null, null, null, handlingText(s)],
    ...s.params.map((p, i) => param('parameter', p, i + 1)),
    ...framework.map((p) => param('parameter (by name only)', p, null)),
    ...s.resultColumns.map((c, i): (string | null)[] => ['result column', String(i + 1), c.name, c.type.toUpperCase(), null, null, null, c.description]),
  ];
}
