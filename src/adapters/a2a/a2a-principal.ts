import type { ServerCallContext, User } from '@a2a-js/sdk/server';
import { LOCAL_PRINCIPAL } from '../http/network-auth.js';

/** The caller the network auth recognised; tasks, contexts and sessions are scoped to its id. */
export class A2aPrincipal implements User {
  constructor(readonly id: string) {}
  get isAuthenticated(): boolean {
    return true;
  }
  get userName(): string {
    return this.id;
  }
}

/** The principal of a call (every accepted call has one; `--no-auth` callers are the local user). */
export function ownerOf(context: ServerCallContext): string {
  const user = context.user;
  return user?.isAuthenticated ? user.userName : LOCAL_PRINCIPAL;
}
