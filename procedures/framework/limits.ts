/**
 * The limits every procedure call runs under (the `procedures:` section of the proxy's
 * configuration): time limits, delete and listing concurrency, memory budgets, the table lock
 * and the heavy-job cap. Declared here, where they are read; the proxy's configuration schema
 * embeds this schema.
 */
import { z } from 'zod';

export const procedureLimitsSchema = z
  .strictObject({
    /** remove_orphan_files refuses an older_than younger than this unless forced (ADMIN). */
    orphan_min_age_ms: z.number().int().nonnegative().default(3_600_000),
    default_timeout_ms: z.number().int().positive().default(3_600_000),
    max_timeout_ms: z.number().int().positive().default(86_400_000),
    delete_concurrency: z.number().int().positive().default(16),
    /** remove_orphan_files keeps up to this many candidate files in memory (~100 bytes each), then spills to temp files. */
    orphan_memory_files: z.number().int().positive().default(250_000),
    /** Where remove_orphan_files spills (a `paimon-orphans-*` directory, removed after the call); default the OS temp dir. */
    orphan_spill_dir: z.string().min(1).optional(),
    /** Directories listed at once, and manifests read at once, by remove_orphan_files. */
    orphan_list_concurrency: z.number().int().positive().default(8),
    compact_memory_budget_mb: z.number().int().positive().default(512),
    compact_concurrency: z.number().int().positive().default(2),
    /** compact (and compact_database) on tables with VARIANT columns; false leaves them to Paimon's engines. */
    compact_variant_tables: z.boolean().default(true),
    /** A metadata-changing CALL on a table that another CALL holds: wait for it, or fail at once. */
    table_lock: z.enum(['wait', 'fail']).default('wait'),
    /** Longest wait for a table lock before failing (table_lock 'wait'). */
    table_lock_wait_ms: z.number().int().nonnegative().default(60_000),
    /** Global cap on heavy procedures (compact, orphan cleanup, ...) running at once; more queue. */
    max_concurrent_heavy: z.number().int().positive().default(2),
  })
  .prefault({});

export type ProcedureLimits = z.infer<typeof procedureLimitsSchema>;
