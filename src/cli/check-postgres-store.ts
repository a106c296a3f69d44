import type { Agent } from '../agent/agent.js';
import { errorMessage } from '../errors/error-message.js';
import { redactStoreUrl } from '../storage/redact-store-url.js';
import type { DoctorCheck } from './doctor-check.js';

/**
 * `doctor` with a PostgreSQL store (`PLAITED_STORE`, `storage.url`): the agent opens it as a
 * session would (connect, create or upgrade the schema under its lock), so a refused password or
 * a missing database shows here with the fix the error names.
 */
export async function checkPostgresStore(agent: Agent, url: string): Promise<DoctorCheck> {
  const name = 'state store';
  try {
    await agent.ready?.();
    return { name, ok: true, detail: `${redactStoreUrl(url)} answers (PostgreSQL, schema up to date)` };
  } catch (error) {
    // The store's message names the cause and its fix already.
    return { name, ok: false, detail: errorMessage(error) };
  }
}
