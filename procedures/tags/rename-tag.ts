/**
 * `rename_tag` (Spark RenameTagProcedure `tag`/`target_tag`, Flink `tagName`/`targetTagName`;
 * TagManager.renameTag): the source must exist and the target must not. The rename never
 * overwrites: a target created concurrently makes it TAG_ALREADY_EXISTS.
 */
import { defineProcedure } from '../framework/registry.js';

export const renameTag = defineProcedure({
  name: 'rename_tag',
  description: 'Rename a tag; the new name must not exist (the rename never overwrites a tag).',
  params: [
    { name: 'table', type: 'string', required: true, description: "Table identifier 'db.tbl' or 'db.tbl$branch_<name>'." },
    { name: 'tag', aliases: ['tagName'], type: 'string', required: true, description: 'The existing tag.' },
    { name: 'target_tag', aliases: ['targetTagName'], type: 'string', required: true, description: 'Its new name.' },
  ],
  resultColumns: [
    { name: 'result', type: 'boolean', description: "True when the tag was renamed (Paimon's result)." },
    { name: 'tag', type: 'string', description: 'The old name.' },
    { name: 'target_tag', type: 'string', description: 'The new name.' },
    { name: 'snapshot_id', type: 'bigint', description: 'The snapshot the tag points at.' },
  ],
  privilege: { privilege: 'ALTER', on: 'table' },
  destructive: false,
  run: async (args, ctx) => {
    const t = await ctx.resolveTable(args.table);
    const tags = t.tagManager();
    const tag = await tags.getOrThrow(args.tag);
    ctx.throwIfAborted();
    await tags.renameTag(args.tag, args.target_tag);
    ctx.markCommitted();
    ctx.reportAffected(t.identifier);
    return {
      rows: [{ result: true, tag: args.tag, target_tag: args.target_tag, snapshot_id: tag.id }],
      info: `Rename [${args.tag}] to [${args.target_tag}] successfully.`,
    };
  },
});
