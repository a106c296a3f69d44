import type { ServerCallContext, User } from '@a2a-js/sdk/server';

/** The caller the network auth recognised; tasks and contexts are scoped to its id. */
export class A2aPrincipal implements User {
  constructor(readonly id: string) {}
  get isAuthenticated(): boolean {
    return true;
  }
  get userName(): string {
    return this.id;
  }
}

/** Without authentication (`--no-auth` on loopback) every caller shares one scope. */
export const ANONYMOUS_OWNER = 'anonymous';

export function ownerOf(context: ServerCallContext): string {
  const user = context.user;
  return user?.isAuthenticated ? user.userName : ANONYMOUS_OWNER;
}
