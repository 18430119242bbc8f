/**
 * Documentation generated from the procedure declarations (one source of truth): the
 * procedure table and, per procedure, its privilege and handling (table lock and FE refresh,
 * heavy-job cap) and its parameter and result tables for the README, and the rows of
 * `SHOW PROCEDURES`.
 */
import type { ProcedureRegistry } from './registry.js';
import { formatSignature, traitsOf, type ProcedureSignature } from './signature.js';

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

/** Rows of `SHOW PROCEDURES`: Name, Aliases, Signature, Privilege, Destructive, Description. */
export function procedureListing(registry: ProcedureRegistry): (string | null)[][] {
  return registry.list().map((p) => {
    const s = p.signature;
    return [s.name, (s.aliases ?? []).join(', '), formatSignature(s), `${s.privilege.privilege} ON ${s.privilege.on.toUpperCase()}`, s.destructive ? 'YES' : 'NO', s.description];
  });
}
