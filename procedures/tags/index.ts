/**
 * The tag procedures (create, delete, rename, replace, expire, automatic creation). Each module declares one
 * procedure; this list is what procedures/index.ts registers.
 */
import type { ParamSpec } from '../framework/signature.js';
import type { ProcedureDefinition } from '../framework/registry.js';
import { createTag } from './create-tag.js';
import { createTagFromTimestamp } from './create-tag-from-timestamp.js';
import { deleteTag } from './delete-tag.js';
import { renameTag } from './rename-tag.js';
import { replaceTag } from './replace-tag.js';
import { expireTags } from './expire-tags.js';
import { triggerTagAutomaticCreation } from './trigger-tag-automatic-creation.js';

export const tagProcedures: readonly ProcedureDefinition<readonly ParamSpec[]>[] = [createTag, createTagFromTimestamp, deleteTag, renameTag, replaceTag, expireTags, triggerTagAutomaticCreation];
