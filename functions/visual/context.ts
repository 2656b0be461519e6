import { VISUAL_SETTINGS } from './settings';
import { defineContext } from '../../shared/context';

/** What the visual service's code is handed per invocation: the shared part (it has no database). */
export const visualContext = defineContext('visual', VISUAL_SETTINGS, () => ({}));

export type VisualContext = ReturnType<typeof visualContext>;
