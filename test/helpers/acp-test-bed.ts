import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect } from 'vitest';
import { startScriptedOpenAIServer, type ScriptedOpenAIServer } from './scripted-openai-server.js';
import { startAcpCli, type AcpCli, type StartCliOptions } from './acp-cli.js';

/**
 * The set-up every ACP end-to-end file shares: a fresh scripted model per test (so a step one
 * test left unused never leaks into the next), CLIs pointed at it, and after each test every
 * CLI closed and its traffic checked against the ACP schema.
 */
/** A CLI the bed closes and checks after the test (v1 or v2). */
type CheckedCli = { close(): Promise<unknown>; validator: { errors: string[] } };

export function acpTestBed(options: { prefix: string; args?: string[]; before?: () => void }) {
  let server: ScriptedOpenAIServer | undefined;
  const clis: CheckedCli[] = [];
  beforeEach(async () => {
    options.before?.();
    server = await startScriptedOpenAIServer();
  });
  afterEach(async () => {
    for (const cli of clis.splice(0)) {
      await cli.close();
      expect(cli.validator.errors, cli.validator.errors.join('\n')).toEqual([]);
    }
    await server?.close();
  });
  const bed = {
    get server(): ScriptedOpenAIServer {
      if (!server) throw new Error('the scripted model starts in beforeEach');
      return server;
    },
    project: (): string => mkdtempSync(join(tmpdir(), options.prefix)),
    /** The built CLI in `cwd`, on the scripted model, checked after the test. */
    start(cwd: string, startOptions: Partial<StartCliOptions> = {}): AcpCli {
      return bed.track(
        startAcpCli({
          ...startOptions,
          cwd,
          args: [...(options.args ?? []), '--model', 'openai-compatible:scripted', '--base-url', bed.server.url, ...(startOptions.args ?? [])],
        }),
      );
    },
    /** Closes and checks `cli` after the test. */
    track<C extends CheckedCli>(cli: C): C {
      clis.push(cli);
      return cli;
    },
    /** For a CLI the test closes itself (a restart), to check it now. */
    async closeNow(cli: CheckedCli): Promise<void> {
      clis.splice(clis.indexOf(cli), 1);
      await cli.close();
      expect(cli.validator.errors, cli.validator.errors.join('\n')).toEqual([]);
    },
  };
  return bed;
}
