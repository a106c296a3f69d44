import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeStoreContract } from './store-contract.js';

describeStoreContract('SQLite', async () => ({ spec: join(mkdtempSync(join(tmpdir(), 'plaited-contract-')), 'state.db') }));
