/**
 * The consumer procedures (reset and clear streaming readers' positions). Each module
 * declares one procedure (or a pair sharing one contract); this list is what procedures/index.ts
 * registers.
 */
import type { ParamSpec } from '../framework/signature.js';
import type { ProcedureDefinition } from '../framework/registry.js';
import { resetConsumer } from './reset-consumer.js';
import { clearConsumers } from './clear-consumers.js';

export const consumerProcedures: readonly ProcedureDefinition<readonly ParamSpec[]>[] = [resetConsumer, clearConsumers];
