/**
 * `clear_consumers` (Spark/Flink ClearConsumersProcedure, ConsumerManager.clearConsumers): delete
 * every consumer whose id the `including` pattern matches as a whole and the `excluding` pattern
 * (when given) does not. Patterns are Java regular expressions matched as Matcher.matches()
 * does, as Paimon compiles them (src/paimon/compact/java-regex.ts: a Java-only construct
 * without an exact equivalent is NOT_SUPPORTED); a blank or absent `including` means `.*`, a
 * blank `excluding` means none.
 *
 * Beyond Paimon: dry_run lists what would go; the result names each consumer deleted with the
 * snapshot it pointed at; and the plan is pinned: if a selected consumer moved or vanished before
 * the deletion starts (a streaming job still running with it), nothing is deleted and the call
 * fails with CONCURRENT_MODIFICATION, since that job would write the consumer back anyway.
 */
import { defineProcedure } from '../framework/registry.js';
import { ProcedureError } from '../framework/errors.js';
import { quote } from '../framework/quote.js';
import { selectConsumerIds } from '../../src/paimon/table/consumer-manager.js';
import { compileJavaRegex, UnsupportedJavaRegexError } from '../../src/paimon/compact/java-regex.js';

/** Paimon's StringUtils.isNullOrWhitespaceOnly: such a pattern argument counts as absent. */
function patternArg(text: string | null, argument: string): RegExp | undefined {
  if (text === null || text.trim() === '') return undefined;
  try {
    return compileJavaRegex(text, argument);
  } catch (e) {
    if (e instanceof UnsupportedJavaRegexError) throw new ProcedureError('NOT_SUPPORTED', e.message, { cause: e });
    throw e;
  }
}

export const clearConsumers = defineProcedure({
  name: 'clear_consumers',
  description:
    "Delete the consumers whose id matches including_consumers (a Java regular expression matched against the whole id; default all) and not excluding_consumers (Paimon's ClearConsumersProcedure). Stop streaming jobs using those consumer ids first: a running job writes its consumer back at its next checkpoint.",
  params: [
    { name: 'table', type: 'string', required: true, description: "Table identifier 'db.tbl' or 'db.tbl$branch_<name>'." },
    {
      name: 'including_consumers',
      aliases: ['includingConsumers'],
      type: 'string',
      description: "Java regular expression of the consumer ids to delete, matched against the whole id (default: '.*', every consumer).",
    },
    {
      name: 'excluding_consumers',
      aliases: ['excludingConsumers'],
      type: 'string',
      description: 'Java regular expression of consumer ids to keep even when including_consumers matches them (default: none).',
    },
    { name: 'dry_run', type: 'boolean', default: false, description: 'Report the consumers that would be deleted; change nothing.' },
  ],
  resultColumns: [
    { name: 'result', type: 'boolean', description: "True when the call succeeded (Paimon's result)." },
    { name: 'cleared_count', type: 'int', description: 'Number of consumers deleted (or that would be).' },
    { name: 'cleared_consumers', type: 'json', description: 'Each consumer deleted with the snapshot it pointed at before: {"id": nextSnapshot, ...}.' },
    { name: 'remaining_consumers', type: 'int', description: 'Consumers left on the table (or branch).' },
    { name: 'dry_run', type: 'boolean', description: 'Whether this was a dry run.' },
  ],
  privilege: { privilege: 'ALTER', on: 'table' },
  destructive: true,
  run: async (args, ctx) => {
    const t = await ctx.resolveTable(args.table);
    const including = patternArg(args.including_consumers, 'including_consumers') ?? /.*/s;
    const excluding = patternArg(args.excluding_consumers, 'excluding_consumers');
    const consumers = t.consumerManager();
    const all = await consumers.listConsumers();
    const positions = new Map(all.map((c) => [c.id, c.nextSnapshot]));
    const selected = selectConsumerIds([...positions.keys()].sort(), including, excluding);
    const cleared = Object.fromEntries(selected.map((id) => [id, positions.get(id) ?? null]));
    const row = (dryRun: boolean) => ({
      result: true,
      cleared_count: selected.length,
      cleared_consumers: JSON.stringify(cleared),
      remaining_consumers: all.length - selected.length,
      dry_run: dryRun,
    });
    if (args.dry_run || selected.length === 0) {
      return { rows: [row(args.dry_run)], info: `${args.dry_run ? 'would clear' : 'cleared'} ${selected.length} consumer(s)` };
    }
    // The pin: every selected consumer still where it was when selected.
    const moved: string[] = [];
    for (const id of selected) {
      const now = await consumers.consumer(id);
      if (now === null) moved.push(`consumer ${quote(id)} was deleted`);
      else if (now.nextSnapshot !== positions.get(id)) moved.push(`consumer ${quote(id)} moved from ${positions.get(id)} to ${now.nextSnapshot}`);
    }
    if (moved.length > 0) {
      throw new ProcedureError(
        'CONCURRENT_MODIFICATION',
        `clear_consumers on ${t.identifier}: ${moved.join('; ')} while the call ran (a streaming job still using it?). Nothing was deleted; stop the job and call again.`,
      );
    }
    ctx.throwIfAborted();
    let done = 0;
    try {
      for (const id of selected) {
        ctx.throwIfAborted();
        await consumers.deleteConsumer(id);
        done++;
      }
    } finally {
      if (done > 0) {
        ctx.markCommitted();
        ctx.reportAffected(t.identifier);
      }
    }
    return { rows: [row(false)], info: `cleared ${selected.length} consumer(s)` };
  },
});
