import type { PlaitedConfig } from '../config/schema.js';
import { redactStoreUrl } from '../storage/redact-store-url.js';
import { CliUsageError } from './parse-cli-args.js';

/**
 * The PostgreSQL session store the agent uses here: `--store`, else `PLAITED_STORE`, else config
 * `storage.url`; `undefined` for the SQLite default. The server and `sessions` read it alike, so
 * `sessions list` shows what the agent saved. Anything but a postgres:// URL is refused.
 */
export function sessionStoreUrl(config: PlaitedConfig, flag: string | undefined): string | undefined {
  const store = flag ?? (process.env.PLAITED_STORE || undefined) ?? config.storage.url;
  if (store !== undefined && !/^postgres(ql)?:\/\//.test(store)) {
    throw new CliUsageError(
      `the session store must be a postgres:// (or postgresql://) URL, got ${redactStoreUrl(store)}; unset --store / PLAITED_STORE / storage.url for the SQLite default`,
    );
  }
  return store;
}
