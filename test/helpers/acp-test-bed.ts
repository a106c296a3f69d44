import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { startScriptedOpenAIServer, type ScriptedOpenAIServer } from './scripted-openai-server.js';
import { startAcpCli, type AcpCli, type StartCliOptions } from './acp-cli.js';
import { closeChecked, type CheckedCli } from './close-checked.js';

/**
 * A fresh model server per test (so a step one test left unused never leaks into the next), and
 * after each test every tracked CLI closed and its traffic checked against the ACP schema.
 */
export function checkedClis<S extends { close(): Promise<unknown> }>(startServer: () => Promise<S>) {
  let server: S | undefined;
  const clis: CheckedCli[] = [];
  beforeEach(async () => {
    server = await startServer();
  });
  afterEach(async () => {
    for (const cli of clis.splice(0)) {
      await closeChecked(cli);
    }
    await server?.close();
  });
  return {
    get server(): S {
      if (!server) throw new Error('the model server starts in beforeEach');
      return server;
    },
    /** Closes and checks `cli` after the test. */
    track<C extends CheckedCli>(cli: C): C {
      clis.push(cli);
      return cli;
    },
    /** For a CLI the test closes itself (a restart), to check it now. */
    async closeNow(cli: CheckedCli): Promise<void> {
      clis.splice(clis.indexOf(cli), 1);
      await closeChecked(cli);
    },
  };
}

/** The set-up every ACP end-to-end file on the scripted model shares: {@link checkedClis}, and CLIs pointed at it. */
export function acpTestBed(options: { prefix: string; args?: string[]; before?: () => void }) {
  const checked = checkedClis(async () => {
    options.before?.();
    return startScriptedOpenAIServer();
  });
  return {
    get server(): ScriptedOpenAIServer {
      return checked.server;
    },
    track: checked.track,
    closeNow: checked.closeNow,
    project: (): string => mkdtempSync(join(tmpdir(), options.prefix)),
    /** The built CLI in `cwd`, on the scripted model, checked after the test. */
    start(cwd: string, startOptions: Partial<StartCliOptions> = {}): AcpCli {
      return checked.track(
        startAcpCli({
          ...startOptions,
          cwd,
          args: [...(options.args ?? []), '--model', 'openai-compatible:scripted', '--base-url', checked.server.url, ...(startOptions.args ?? [])],
        }),
      );
    },
  };
}
