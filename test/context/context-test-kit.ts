import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { TurnContext } from '../../src/agent/agent-extension.js';
import type { AgentOutput } from '../../src/contracts/agent-output.js';
import type { Embedder } from '../../src/model/embedder.js';
import { openHybridIndex, type HybridIndex } from '../../src/retrieval/hybrid-index.js';
import { createLocalRuntime } from '../../src/tools/local-runtime.js';
import { createTestEmbedder } from '../retrieval/test-embedder.js';
import { toolContext as recordingToolContext, type RecordingContext } from '../tools/tool-test-helpers.js';

/** Shared set-up for the context layer's tests: fixtures, the real GloVe embedder and index, contexts. */
export const FIXTURES = resolve(import.meta.dirname, '../fixtures/context');

/** The shared GloVe test embedder (one thread); fails loudly (never skips) when the model is not configured. */
export function testEmbedder(): Embedder {
  return createTestEmbedder();
}

export async function testIndex(embedder?: Embedder, dir?: string): Promise<HybridIndex> {
  return openHybridIndex({ path: dir ? join(dir, 'index.db') : ':memory:', embedder });
}

/** A fresh copy of a fixture tree in a temporary folder (tests write into it). */
export async function copyFixture(name: string): Promise<{ dir: string; cleanup(): Promise<void> }> {
  const root = await mkdtemp(join(tmpdir(), `plaited-context-${name}-`));
  const dir = join(root, name);
  await cp(join(FIXTURES, name), dir, { recursive: true });
  return { dir, cleanup: () => rm(root, { recursive: true, force: true }) };
}

export async function tempDir(prefix: string): Promise<{ dir: string; cleanup(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), `plaited-context-${prefix}-`));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

export function turnContext(options: { sessionId?: string; cwd: string; intent?: string }): TurnContext & { events: AgentOutput[] } {
  const events: AgentOutput[] = [];
  return {
    sessionId: options.sessionId ?? 'session-1',
    cwd: options.cwd,
    intent: options.intent ?? '',
    signal: new AbortController().signal,
    runtime: createLocalRuntime(options.cwd),
    emit: (event) => events.push(event),
    events,
  };
}

/** The tools' recording context over the local runtime at `cwd`, as session `session-1` unless told. */
export function toolContext(options: { sessionId?: string; cwd: string }): RecordingContext {
  return { ...recordingToolContext(createLocalRuntime(options.cwd)), sessionId: options.sessionId ?? 'session-1' };
}

export function textOf(result: { content: Array<{ type: string; text?: string }> }): string {
  return result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}
