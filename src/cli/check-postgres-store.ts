import { errorMessage } from '../errors/error-message.js';
import { openSessionStores } from '../storage/open-session-stores.js';
import { redactStoreUrl } from '../storage/redact-store-url.js';
import type { DoctorCheck } from './doctor-check.js';

/**
 * The PostgreSQL session store the agent would use (`--store`, PLAITED_STORE, `storage.url`):
 * reachable with these credentials and on a schema this version reads, checked by opening it as
 * a start does (which brings an older schema up to date, as the next start would).
 */
export async function checkPostgresStore(url: string): Promise<DoctorCheck> {
  const name = 'state store';
  try {
    const stores = await openSessionStores({ url });
    await stores.closeAll();
    return { name, ok: true, detail: `${redactStoreUrl(url)} reachable, schema current` };
  } catch (error) {
    return { name, ok: false, detail: errorMessage(error), fix: 'check the store URL (--store, PLAITED_STORE or storage.url), that the server is up, and that it accepts this user and password' };
  }
}
