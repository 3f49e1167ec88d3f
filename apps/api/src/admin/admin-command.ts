import type { UserRepository } from '@service/auth';

/** What each admin command gets: the organization's users, and a way to print. */
export interface AdminContext {
  organizationId: string;
  users: UserRepository;
  print(line: string): void;
}

export interface AdminCommand<O> {
  name: string;
  summary: string;
  options: Array<{ flags: string; description: string; required?: boolean }>;
  run(ctx: AdminContext, options: O): Promise<void>;
}

/** An error an operator can fix: the message names the thing, the hint the next step. */
export class AdminError extends Error {
  constructor(
    message: string,
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'AdminError';
  }
}
