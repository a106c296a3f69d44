import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import type * as v2 from '@agentclientprotocol/sdk/experimental/v2';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { startScriptedOpenAIServer, type ScriptedOpenAIServer } from './scripted-openai-server.js';
import { initialize, startAcpCli, type AcpCli, type StartCliOptions } from './acp-cli.js';
import { initializeV2, startAcpV2Cli, type AcpV2Cli, type StartV2Options } from './acp-v2-cli.js';
import { closeChecked, type CheckedCli } from './close-checked.js';

type PermissionHandler = NonNullable<StartCliOptions['onPermission']>;

/** A CLI started once for the tests of a describe, each test in sessions of its own. */
export interface SharedAcpCli {
  readonly cli: AcpCli;
  /** The folder it started in. */
  readonly cwd: string;
  /** What `initialize` answered when it started. */
  readonly init: acp.InitializeResponse;
  /** A session in `cwd`; its permission questions go to `onPermission` (default: allow once). */
  session(cwd: string, onPermission?: PermissionHandler): Promise<string>;
  /** Sends the permission questions of a session the test opened itself (`additionalDirectories`, a load) to `onPermission`. */
  onPermission(sessionId: string, onPermission: PermissionHandler): void;
  /** Closes it now and checks its traffic (a restart test, run last). */
  close(): Promise<void>;
}

/** A v2 (draft) client's CLI started once for the tests of a describe or file. */
export interface SharedAcpV2Cli {
  readonly cli: AcpV2Cli;
  readonly cwd: string;
  readonly init: v2.InitializeResponse;
  /** Closes it now and checks its traffic (a test of the exit, run last). */
  close(): Promise<void>;
}

/**
 * The set-up of an ACP end-to-end file whose independent tests share CLIs (a CLI start is most of
 * a test's CPU). One scripted model server for the file: after each test no step it queued may be
 * left unused (`pending()`), so a step cannot leak into the next test. CLIs a test starts itself
 * ({@link start}: a restart, its own flags) are closed and schema-checked after it; shared ones
 * ({@link shared}) are checked after every test and closed after their describe (or the file).
 */
export function sharedAcpBed(options: { prefix: string; args?: string[] }) {
  let server: ScriptedOpenAIServer | undefined;
  const own: CheckedCli[] = [];
  const shared: CheckedCli[] = [];
  const closeShared = async (cli: CheckedCli): Promise<void> => {
    if (!shared.includes(cli)) return;
    shared.splice(shared.indexOf(cli), 1);
    await closeChecked(cli);
  };
  /** A CLI started in the enclosing describe's beforeAll (in `cwd` or a project folder of its own) and closed after it. */
  const startForDescribe = <C extends CheckedCli, I>(cwd: string | undefined, start: (cwd: string) => Promise<{ cli: C; init: I }>) => {
    let started: { cli: C; cwd: string; init: I } | undefined;
    beforeAll(async () => {
      const folder = cwd ?? bed.project();
      started = { ...(await start(folder)), cwd: folder };
    });
    afterAll(async () => {
      if (started) await closeShared(started.cli);
    });
    return () => {
      if (!started) throw new Error('the shared CLI starts in beforeAll');
      return started;
    };
  };
  const modelArgs = (): string[] => ['--model', 'openai-compatible:scripted', '--base-url', bed.server.url];
  beforeAll(async () => {
    server = await startScriptedOpenAIServer();
  });
  afterEach(async () => {
    for (const cli of own.splice(0)) {
      await closeChecked(cli);
    }
    for (const cli of shared) expect(cli.validator.errors, cli.validator.errors.join('\n')).toEqual([]);
    expect(server?.pending(), 'scripted steps this test queued and no request took').toBe(0);
  });
  afterAll(async () => {
    for (const cli of shared.splice(0)) {
      await closeChecked(cli);
    }
    await server?.close();
  });
  const bed = {
    get server(): ScriptedOpenAIServer {
      if (!server) throw new Error('the model server starts in beforeAll');
      return server;
    },
    project: (): string => mkdtempSync(join(tmpdir(), options.prefix)),
    /** A CLI of this test's own on the scripted model (`args` after the model's), closed and checked after the test. */
    start(cwd: string, startOptions: Partial<StartCliOptions> = {}): AcpCli {
      const cli = startAcpCli({ ...startOptions, cwd, args: [...(options.args ?? []), ...modelArgs(), ...(startOptions.args ?? [])] });
      own.push(cli);
      return cli;
    },
    /** For a CLI the test closes itself (a restart), to check it now. */
    async closeNow(cli: CheckedCli): Promise<void> {
      own.splice(own.indexOf(cli), 1);
      await closeChecked(cli);
    },
    /** Tracks a CLI the test started another way, to close and check it after the test. */
    track<C extends CheckedCli>(cli: C): C {
      own.push(cli);
      return cli;
    },
    /**
     * One CLI for the tests of the enclosing describe (started and initialized with `capabilities`
     * in its beforeAll), in `startOptions.cwd` or a project folder of its own; permission questions go to the handler of
     * their session.
     */
    shared(startOptions: Partial<StartCliOptions> = {}, capabilities: acp.ClientCapabilities = {}): SharedAcpCli {
      const handlers = new Map<string, PermissionHandler>();
      const allowOnce: PermissionHandler = (request) => ({ outcome: { outcome: 'selected', optionId: request.options[0]!.optionId } });
      const started = startForDescribe(startOptions.cwd, async (cwd) => {
        const cli = startAcpCli({
          ...startOptions,
          cwd,
          args: [...(options.args ?? []), ...modelArgs(), ...(startOptions.args ?? [])],
          onPermission: (request) => (handlers.get(request.sessionId) ?? allowOnce)(request),
        });
        shared.push(cli);
        return { cli, init: await initialize(cli, capabilities) };
      });
      return Object.assign(new StartedCli(started, closeShared), {
        async session(cwd: string, onPermission?: PermissionHandler) {
          const { sessionId } = await started().cli.agent.request('session/new', { cwd, mcpServers: [] });
          if (onPermission) handlers.set(sessionId, onPermission);
          return sessionId;
        },
        onPermission(sessionId: string, onPermission: PermissionHandler) {
          handlers.set(sessionId, onPermission);
        },
      });
    },
    /** Like {@link shared}, for a client of the v2 draft (its permission questions: allow once). */
    sharedV2(startOptions: Partial<StartV2Options> = {}): SharedAcpV2Cli {
      const started = startForDescribe(startOptions.cwd, async (cwd) => {
        const cli = startAcpV2Cli({ ...startOptions, cwd, args: [...(options.args ?? []), ...modelArgs(), ...(startOptions.args ?? [])] });
        shared.push(cli);
        return { cli, init: await initializeV2(cli) };
      });
      return new StartedCli(started, closeShared);
    },
  };
  return bed;
}

/** A shared CLI's `cli`, `cwd` and `init`, read once its beforeAll has started it. */
class StartedCli<C extends CheckedCli, I> {
  constructor(
    private readonly started: () => { cli: C; cwd: string; init: I },
    private readonly closeShared: (cli: CheckedCli) => Promise<void>,
  ) {}
  get cli(): C {
    return this.started().cli;
  }
  get cwd(): string {
    return this.started().cwd;
  }
  get init(): I {
    return this.started().init;
  }
  /** Closes it now and checks its traffic (a restart test, or a test of the exit, run last). */
  close(): Promise<void> {
    return this.closeShared(this.started().cli);
  }
}
