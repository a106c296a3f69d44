import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectAcpHttp, initializeHttp, type AcpHttpClient } from '../adapters/acp/acp-http-client.js';
import type { HttpCli } from '../adapters/mcp-server/mcp-http-cli.js';

/** A replica's own folder (its process records, its index): nothing of it is shared. Also a shared workspace. */
export function replicaFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'plaited-replica-'));
  mkdirSync(join(dir, '.plaited'));
  return dir;
}

/** A promise the test opens when it chooses (a scripted reply held part-way). */
export function gate(): { opened: Promise<void>; open(): void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

/** ACP-over-HTTP clients of a test file: connected and initialized, all closed by `closeAll` (an afterEach). */
export function acpClients(): { connect(cli: HttpCli): Promise<AcpHttpClient>; closeAll(): void } {
  const clients: AcpHttpClient[] = [];
  return {
    async connect(cli) {
      const client = connectAcpHttp(cli.url);
      clients.push(client);
      await initializeHttp(client);
      return client;
    },
    closeAll() {
      for (const client of clients.splice(0)) client.close();
    },
  };
}
