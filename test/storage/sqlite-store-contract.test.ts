import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteA2aTaskRecords } from '../../src/storage/sqlite/sqlite-a2a-task-records.js';
import { describeA2aTaskRecordsContract } from './a2a-task-records-contract.js';
import { describeStoreContract } from './store-contract.js';

const freshFile = () => join(mkdtempSync(join(tmpdir(), 'plaited-contract-')), 'state.db');

describeStoreContract('SQLite', async () => ({ spec: freshFile() }));

describeA2aTaskRecordsContract('SQLite', async () => {
  const path = freshFile();
  return { open: async () => new SqliteA2aTaskRecords(path) };
});
