import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI } from '../../helpers/acp-cli.js';

/** What the sandbox tests need beside `startAcpCli` (test/helpers/acp-cli.ts): the built CLI, a project config, a tool call's text. */

export interface SessionUpdateRecord {
  sessionId: string;
  update: { sessionUpdate: string; toolCallId?: string; status?: string; content?: unknown; [key: string]: unknown };
}

export function requireBuiltCli(): void {
  if (!existsSync(CLI)) throw new Error(`the e2e sandbox tests need the built CLI at ${CLI}: run \`npm run build\` first`);
}

export function writeConfig(project: string, config: unknown): void {
  mkdirSync(join(project, '.plaited'), { recursive: true });
  writeFileSync(join(project, '.plaited', 'config.json'), JSON.stringify(config, null, 2));
}

/** The text of a tool call's final update (content blocks and raw output). */
export function toolCallText(update: SessionUpdateRecord['update']): string {
  return JSON.stringify(update.content ?? '') + JSON.stringify(update.rawOutput ?? '');
}
