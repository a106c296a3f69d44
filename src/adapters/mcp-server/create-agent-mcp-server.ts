import { McpServer, ResourceNotFoundError, ResourceTemplate, type ServerContext } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { Agent } from '../../agent/agent.js';
import type { AgentOutput } from '../../contracts/agent-output.js';
import { InvalidCwdError } from '../invalid-cwd-error.js';
import { validateSessionCwd } from '../validate-session-cwd.js';
import { LOCAL_PRINCIPAL, ownedSessions } from '../../agent/owned-sessions.js';
import { formatTranscript } from './format-transcript.js';
import type { HostSampling } from './host-sampling.js';
import { registerRegistryTools, type RegistryFace } from './register-registry-tools.js';
import { runMcpTurn, type AskHost, type McpTurnResult } from './run-mcp-turn.js';
import type { SkillPrompt } from './skill-prompts.js';
import { agentVersion } from '../agent-version.js';
import { strictToolArguments } from './strict-tool-arguments.js';

export interface AgentMcpServerOptions {
  version?: string;
  /** Where sessions opened by `prompt`/`new_session` work (default: the process cwd). */
  cwd?: string;
  /** Routes model calls to this host's sampling when the agent has no model of its own. */
  sampling?: HostSampling;
  /** With `adapters.mcp.exposeRegistry`: the MCP registry behind `discover` and `call`. */
  registry?: RegistryFace | (() => Promise<RegistryFace>);
  /** The skills offered as MCP prompts. */
  skills?: readonly SkillPrompt[];
  /** Who is calling (HTTP: from the bearer token); stdio is the local user. Other principals' sessions do not exist for it. */
  principal?: string;
}

/**
 * One MCP server instance over the agent (one per stdio connection or HTTP session):
 * the `prompt`, `new_session` and `list_sessions` tools, session transcripts as
 * resources, skills as prompts.
 */
export function createAgentMcpServer(agent: Agent, options: AgentMcpServerOptions = {}): McpServer {
  const cwd = options.cwd ?? process.cwd();
  const sessions = ownedSessions(agent.sessions, options.principal ?? LOCAL_PRINCIPAL);
  const server = new McpServer(
    { name: 'plaited-agent', title: 'Plaited Agent', version: agentVersion(options.version) },
    {
      capabilities: { logging: {}, tools: {}, resources: {}, prompts: {} },
      instructions:
        'A coding agent. Call `prompt` to give it a task (pass `sessionId` to continue a conversation); read `plaited://sessions/{id}` for a transcript.',
    },
  );

  registerPromptTool(server, agent, sessions, cwd, options.sampling);
  registerSessionTools(server, sessions, cwd);
  if (options.registry) registerRegistryTools(server, options.registry);
  registerTranscripts(server, sessions, cwd);
  registerSkillPrompts(server, options.skills ?? []);
  return server;
}

type Sessions = ReturnType<typeof ownedSessions>;

/** `prompt`: one agent turn, with the host's elicitation for permissions and its sampling when it offers them. */
function registerPromptTool(server: McpServer, agent: Agent, sessions: Sessions, cwd: string, hostSampling: AgentMcpServerOptions['sampling']): void {
  const client = () => server.server.getClientCapabilities();
  server.registerTool(
    'prompt',
    {
      title: 'Prompt the agent',
      description:
        'Runs one agent turn on the prompt and returns its final text plus a structured summary of the tool calls it made. Pass sessionId to continue an existing session; a new one is opened otherwise.',
      inputSchema: strictToolArguments('prompt', {
        prompt: z.string().min(1).describe('What the agent should do'),
        sessionId: z.string().optional().describe('Continue this session (from new_session, list_sessions or an earlier result)'),
      }),
    },
    async ({ prompt, sessionId }, ctx) => {
      const session = sessionId ? await sessions.get(sessionId) : await sessions.create({ cwd });
      if (!session) return { isError: true, content: [{ type: 'text', text: unknownSession(sessionId) }] };
      const progressToken = ctx.mcpReq._meta?.progressToken;
      let step = 0;
      const progress =
        progressToken === undefined
          ? undefined
          : (message: string) =>
              ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken, progress: ++step, message } });
      const ask = client()?.elicitation ? elicitPermission(ctx) : undefined;
      const sampling = client()?.sampling
        ? {
            sample: (params: Parameters<ServerContext['mcpReq']['requestSampling']>[0], o: { signal?: AbortSignal }) =>
              ctx.mcpReq.requestSampling(params, { signal: o.signal }),
            supportsTools: Boolean((client()?.sampling as { tools?: unknown } | undefined)?.tools),
          }
        : undefined;
      const turn = () => runMcpTurn(agent, { sessionId: session.sessionId, prompt, signal: ctx.mcpReq.signal, progress, ask });
      const result = hostSampling ? await hostSampling.run(sampling, turn) : await turn();
      return toCallResult(result);
    },
  );
}

/** `new_session` and `list_sessions`, in the folder a caller names (checked) or the server's. */
function registerSessionTools(server: McpServer, sessions: Sessions, cwd: string): void {
  server.registerTool(
    'new_session',
    {
      title: 'New agent session',
      description: 'Opens a new agent session and returns its id, for `prompt`.',
      inputSchema: strictToolArguments('new_session', {
        cwd: z.string().optional().describe('Absolute working folder of the session (default: the server cwd)'),
        mode: z.enum(['default', 'accept-edits', 'plan']).optional(),
      }),
    },
    async (args) => {
      const folder = args.cwd === undefined ? { cwd } : await checkedCwd(args.cwd);
      if ('error' in folder) return folder.error;
      const info = await sessions.create({ cwd: folder.cwd, ...(args.mode ? { mode: args.mode } : {}) });
      const summary = { sessionId: info.sessionId, cwd: info.cwd, mode: info.mode };
      return { content: [{ type: 'text', text: JSON.stringify(summary) }], structuredContent: summary };
    },
  );

  server.registerTool(
    'list_sessions',
    {
      title: 'List agent sessions',
      description: 'Lists the agent sessions of the working folder, newest first.',
      inputSchema: strictToolArguments('list_sessions', { cwd: z.string().optional() }),
      annotations: { readOnlyHint: true },
    },
    async (args) => {
      const folder = args.cwd === undefined ? { cwd } : await checkedCwd(args.cwd);
      if ('error' in folder) return folder.error;
      const listed = (await sessions.list({ cwd: folder.cwd })).map((info) => ({
        sessionId: info.sessionId,
        title: info.title,
        cwd: info.cwd,
        updatedAt: info.updatedAt,
        uri: sessionUri(info.sessionId),
      }));
      return { content: [{ type: 'text', text: JSON.stringify(listed, null, 2) }], structuredContent: { sessions: listed } };
    },
  );
}

/** `plaited://sessions/{id}`: a session's transcript as Markdown. */
function registerTranscripts(server: McpServer, sessions: Sessions, cwd: string): void {
  server.registerResource(
    'session-transcript',
    new ResourceTemplate('plaited://sessions/{id}', {
      list: async () => ({
        resources: (await sessions.list({ cwd })).map((info) => ({
          uri: sessionUri(info.sessionId),
          name: info.title ?? info.sessionId,
          description: `Transcript of session ${info.sessionId}`,
          mimeType: 'text/markdown',
        })),
      }),
    }),
    { title: 'Session transcript', description: 'The transcript of an agent session', mimeType: 'text/markdown' },
    async (uri, variables) => {
      const id = String(variables.id);
      const info = await sessions.get(id, cwd);
      if (!info) throw new ResourceNotFoundError(uri.href, `Unknown session: ${id}`);
      const history = await sessions.history(id, info.cwd);
      return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: formatTranscript(info, history) }] };
    },
  );
}

/** Each skill as an MCP prompt, its body before the caller's task. */
function registerSkillPrompts(server: McpServer, skills: readonly SkillPrompt[]): void {
  for (const skill of skills) {
    server.registerPrompt(
      skill.name,
      {
        title: skill.name,
        description: skill.description,
        argsSchema: z.object({ task: z.string().optional().describe('What to apply the skill to') }),
      },
      ({ task }) => ({
        description: skill.description,
        messages: [{ role: 'user', content: { type: 'text', text: task ? `${skill.body}\n\n---\n\n${task}` : skill.body } }],
      }),
    );
  }
}

/** A client-named session folder, or the tool error that names the field (MCP reports argument errors as tool results). */
async function checkedCwd(value: string): Promise<{ cwd: string } | { error: { isError: true; content: Array<{ type: 'text'; text: string }> } }> {
  try {
    return { cwd: await validateSessionCwd(value) };
  } catch (error) {
    if (!InvalidCwdError.isInstance(error)) throw error;
    return { error: { isError: true, content: [{ type: 'text', text: `Invalid arguments: ${error.message}` }] } };
  }
}

/** The caller may hold an id from another folder's server, a deleted session, or a typo: the ways to a known one. */
function unknownSession(sessionId: string | undefined): string {
  return `Unknown session: ${sessionId}. list_sessions lists the sessions you can continue here; leave sessionId out (or call new_session) to start one`;
}

export function sessionUri(sessionId: string): string {
  return `plaited://sessions/${encodeURIComponent(sessionId)}`;
}

/** Asks the host through a form elicitation: one choice among the agent's permission options. */
function elicitPermission(ctx: ServerContext): AskHost {
  return async (question: Extract<AgentOutput, { type: 'permission-request' }>, signal: AbortSignal) => {
    const result = await ctx.mcpReq.elicitInput(
      {
        mode: 'form',
        message: `The agent wants to run: ${question.title}\nInput: ${JSON.stringify(question.input)}`,
        requestedSchema: {
          type: 'object',
          properties: {
            decision: {
              type: 'string',
              title: 'Decision',
              oneOf: question.options.map((option) => ({ const: option.optionId, title: option.name })),
            },
          },
          required: ['decision'],
        },
      },
      { signal },
    );
    if (result.action !== 'accept') return undefined;
    const decision = result.content?.decision;
    return typeof decision === 'string' ? decision : undefined;
  };
}

function toCallResult(result: McpTurnResult) {
  const notes: string[] = [];
  for (const permission of result.permissions) {
    if (permission.outcome !== 'allowed') notes.push(`Permission for "${permission.title}" ${permission.outcome} by ${permission.decidedBy}${permission.reason ? `: ${permission.reason}` : ''}.`);
  }
  if (result.error) notes.push(`Error ${result.error.code}: ${result.error.message}`);
  const text = [result.text, ...notes].filter((part) => part.length > 0).join('\n\n') || `(no text; turn ended: ${result.stopReason})`;
  return {
    content: [{ type: 'text' as const, text }],
    structuredContent: { ...result } as Record<string, unknown>,
    ...(result.error ? { isError: true } : {}),
  };
}
