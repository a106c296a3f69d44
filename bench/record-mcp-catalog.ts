/**
 * `node dist/bench/record-mcp-catalog.js [--modules DIR] [--out DIR] [--only id,id]
 * [--servers base|wide] [--base DIR]`: starts
 * each server of bench/real-mcp-catalog-servers.ts over stdio with the project's own MCP
 * client, inside bubblewrap with the network cut off (the recording must never reach the
 * internet), and records `tools/list`, `resources/list` and `prompts/list` verbatim with the
 * server name and package version. Writes OUT/catalog.json (servers, plus the skipped ones
 * with their error) and OUT/tools.jsonl in the eval format (id `server__tool`).
 * The packages come from tools/catalog (`npm install` there first).
 * `--servers wide` records the servers added for the wide catalog
 * (bench/real-mcp-catalog-wide-servers.ts); `--base DIR` keeps DIR/catalog.json's recorded
 * servers verbatim in front of them (so the wide catalog holds the first catalog unchanged).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { mcpServerSchema } from '../src/config/schema.js';
import { McpClient } from '../src/mcp/mcp-client.js';
import { CATALOG_SERVERS, DUMMY_ENV, type CatalogServer } from './real-mcp-catalog-servers.js';
import { WIDE_CATALOG_SERVERS } from './real-mcp-catalog-wide-servers.js';

interface PackageJson {
  version: string;
  license?: string;
  bin?: string | Record<string, string>;
}

export interface RecordedServer {
  id: string;
  package: string;
  version: string;
  license: string | null;
  why: string;
  serverInfo: { name: string; version: string } | null;
  tools: unknown[];
  resources: unknown[] | null;
  prompts: unknown[] | null;
  /** A list that failed (e.g. resources/list needs a live database): method → message. */
  listErrors: Record<string, string>;
}

export interface SkippedServer {
  id: string;
  package: string;
  version: string | null;
  reason: string;
}

function readPackage(modules: string, name: string): PackageJson {
  return JSON.parse(readFileSync(join(modules, name, 'package.json'), 'utf8')) as PackageJson;
}

function binPath(modules: string, name: string, pkg: PackageJson): string {
  const bin = typeof pkg.bin === 'string' ? pkg.bin : pkg.bin ? Object.values(pkg.bin)[0] : undefined;
  if (!bin) throw new Error(`${name} has no bin entry`);
  return join(modules, name, bin);
}

async function recordServer(server: CatalogServer, modules: string, scratch: string): Promise<RecordedServer> {
  const pkg = readPackage(modules, server.package);
  const args = (server.args ?? []).map((arg) => arg.replaceAll('{tmp}', scratch));
  const env = Object.fromEntries(Object.entries(server.env ?? {}).map(([key, value]) => [key, value.replaceAll('{tmp}', scratch)]));
  // bwrap: the whole filesystem read-only except the scratch dir, and no network namespace.
  const bwrapArgs = ['--unshare-net', '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp', '--bind', scratch, scratch];
  const config = mcpServerSchema.parse({
    id: server.id,
    transport: 'stdio',
    command: 'bwrap',
    args: [...bwrapArgs, '--', process.execPath, binPath(modules, server.package, pkg), ...args],
    env: { ...DUMMY_ENV, ...env, HOME: scratch },
    cwd: scratch,
    timeoutMs: 20_000,
  });
  const stderr: string[] = [];
  const client = new McpClient(config, {
    reconnect: { maxAttempts: 1 },
    onLog: (entry) => {
      if (entry.level === 'stderr' && stderr.length < 20) stderr.push(String(entry.data));
    },
  });
  try {
    try {
      await client.connect();
    } catch (error) {
      throw new Error(`${error instanceof Error ? error.message : String(error)} | stderr: ${stderr.join(' ').slice(0, 400)}`);
    }
    const identity = client.identity();
    const listErrors: Record<string, string> = {};
    const capabilities = identity?.capabilities ?? {};
    const tools = await client.listTools();
    const list = async <T>(method: string, enabled: boolean, run: () => Promise<T[]>): Promise<T[] | null> => {
      if (!enabled) return null;
      try {
        return await run();
      } catch (error) {
        listErrors[method] = error instanceof Error ? error.message : String(error);
        return null;
      }
    };
    const resources = await list('resources/list', Boolean(capabilities.resources), () => client.listResources());
    const prompts = await list('prompts/list', Boolean(capabilities.prompts), () => client.listPrompts());
    return {
      id: server.id,
      package: server.package,
      version: pkg.version,
      license: pkg.license ?? null,
      why: server.why,
      serverInfo: identity ? { name: identity.name, version: identity.version } : null,
      tools,
      resources,
      prompts,
      listErrors,
    };
  } finally {
    await client.close();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      modules: { type: 'string', default: 'tools/catalog/node_modules' },
      out: { type: 'string', default: 'bench/data/real-mcp-catalog' },
      only: { type: 'string' },
      servers: { type: 'string', default: 'base' },
      base: { type: 'string' },
    },
  });
  if (values.servers !== 'base' && values.servers !== 'wide') throw new Error(`--servers must be base or wide, not ${values.servers}`);
  const list = values.servers === 'wide' ? WIDE_CATALOG_SERVERS : CATALOG_SERVERS;
  const modules = resolve(values.modules);
  const out = resolve(values.out);
  const only = values.only ? new Set(values.only.split(',')) : undefined;
  const servers: RecordedServer[] = [];
  const skipped: SkippedServer[] = [];
  for (const server of list.filter((s) => !only || only.has(s.id))) {
    const scratch = mkdtempSync(join(tmpdir(), `catalog-${server.id}-`));
    try {
      const recorded = await recordServer(server, modules, scratch);
      servers.push(recorded);
      process.stderr.write(`ok   ${server.id}: ${recorded.tools.length} tools\n`);
    } catch (error) {
      let version: string | null = null;
      try {
        version = readPackage(modules, server.package).version;
      } catch {
        version = null;
      }
      const reason = error instanceof Error ? error.message : String(error);
      skipped.push({ id: server.id, package: server.package, version, reason });
      process.stderr.write(`skip ${server.id}: ${reason.slice(0, 300)}\n`);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  }
  if (values.base) {
    // The base catalog's servers stay as recorded; a server skipped there and tried again here
    // keeps only this round's outcome.
    const base = JSON.parse(readFileSync(join(resolve(values.base), 'catalog.json'), 'utf8')) as { servers: RecordedServer[]; skipped: SkippedServer[] };
    const tried = new Set([...servers, ...skipped].map((server) => server.id));
    servers.unshift(...base.servers.filter((server) => !tried.has(server.id)));
    skipped.unshift(...base.skipped.filter((server) => !tried.has(server.id)));
  }
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'catalog.json'), `${JSON.stringify({ recordedWith: 'bench/record-mcp-catalog.ts', servers, skipped }, null, 1)}\n`);
  const lines = servers.flatMap((server) =>
    (server.tools as { name: string; description?: string; inputSchema?: Record<string, unknown> }[]).map((tool) =>
      JSON.stringify({
        id: `${server.id}__${tool.name}`,
        name: tool.name,
        description: tool.description ?? '',
        server: server.id,
        inputSchema: tool.inputSchema ?? null,
      }),
    ),
  );
  writeFileSync(join(out, 'tools.jsonl'), `${lines.join('\n')}\n`);
  process.stderr.write(`${servers.length} servers, ${lines.length} tools, ${skipped.length} skipped → ${out}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
