import type { FunctionDefinition } from '../../../shared/functions';

/** The administration API (`orchestrator/api/admin/...`). */
export const adminFunctions: FunctionDefinition[] = [];
