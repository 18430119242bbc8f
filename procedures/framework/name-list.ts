/**
 * The comma list that `delete_tag(table, 'a,b')` and `delete_branch(table, 'a,b')` take: one
 * reader, one rule, for every procedure that names several tags or branches in one string.
 *
 * Paimon splits with Java's `String.split(",")` (Table.deleteTags trims each name,
 * Table.deleteBranches does not), which drops empty entries at the end of the string only;
 * an empty entry anywhere else reaches TagManager.deleteTag ("Tag name shouldn't be blank")
 * or BranchManager.dropBranch ("Branch name '' doesn't exist") and fails there, after the
 * names before it were already deleted. The rule here keeps Paimon's accepted inputs and
 * refuses its failing ones up front:
 * - split on ',', trim each name (both spellings, so ' b' names branch 'b' as for tags);
 * - blank entries at the end are ignored (`'a,b,'`, as Java's split drops them);
 * - a blank entry anywhere else (`'a,,b'`, `' ,a'`) is INVALID_ARGUMENT before anything changes;
 * - a repeated name counts once, first position kept; no name at all is INVALID_ARGUMENT.
 */
import { ProcedureError } from './errors.js';

/** The distinct names of `text` under the rule above; `kind` ('tag', 'branch') words the errors. */
export function nameList(text: string, kind: string): string[] {
  const parts = text.split(',').map((p) => p.trim());
  while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  if (parts.length === 0) throw new ProcedureError('INVALID_ARGUMENT', `No ${kind} name in '${text}'; name at least one ${kind}.`);
  const blank = parts.indexOf('');
  if (blank >= 0) {
    throw new ProcedureError(
      'INVALID_ARGUMENT',
      `Entry ${blank + 1} of the ${kind} list '${text}' is blank; remove the extra ',' (nothing was changed).`,
    );
  }
  return [...new Set(parts)];
}
