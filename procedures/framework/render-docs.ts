/**
 * Prints the procedure and error documentation generated from the declarations (the README's
 * tables come from here, so they cannot drift from the code):
 *
 *   node --import tsx procedures/framework/render-docs.ts [procedures|errors|all]
 */
import { pathToFileURL } from 'node:url';
import { createDefaultRegistry } from '../index.js';
import { renderProcedureDoc, renderProcedureTable } from './docs.js';
import { renderErrorTable } from './errors.js';

export function renderDocs(what: 'procedures' | 'errors' | 'all' = 'all'): string {
  const registry = createDefaultRegistry();
  const parts: string[] = [];
  if (what !== 'errors') {
    parts.push('## Procedures', '', renderProcedureTable(registry), '');
    for (const p of registry.list()) parts.push(renderProcedureDoc(p.signature), '');
  }
  if (what !== 'procedures') parts.push('## Errors', '', renderErrorTable(), '');
  return parts.join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const arg = process.argv[2] ?? 'all';
  if (arg !== 'procedures' && arg !== 'errors' && arg !== 'all') {
    process.stderr.write('usage: render-docs.ts [procedures|errors|all]\n');
    process.exit(2);
  }
  process.stdout.write(renderDocs(arg));
}
