import type { AppContext } from '../app-context.ts';

/** The small server-rendered workspace: sign-in, API keys, and for administrators keys and users. */
export function registerWorkspacePages(_app: AppContext): void {}
