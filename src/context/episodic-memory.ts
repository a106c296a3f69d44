import type { AgentExtension, TurnContext } from '../agent/agent-extension.js';
import type { StopReason } from '../contracts/agent-output.js';
import type { SearchIndex } from '../retrieval/search-index.js';

export interface EpisodeInput {
  sessionId: string;
  intent: string;
  /** The turn as plain text. */
  transcript: string;
  stopReason: StopReason;
}

export interface EpisodeText {
  summary: string;
  /** What to do differently next time (with `agent.reflection`). */
  reflection?: string;
}

export interface EpisodicMemoryOptions {
  /** The hybrid index episodes live in (kind `episode`, namespace `episodes:<sessionId>`), per project folder. */
  index(cwd: string): Promise<SearchIndex>;
  /** Writes the paragraph (and the reflection); usually a model call. A failure falls back to an extractive summary. */
  summarize(input: EpisodeInput, signal: AbortSignal): Promise<EpisodeText>;
  /** Episodes injected at the start of a turn (`agent.episodic.inject`). */
  inject: number;
}

export interface EpisodicMemory extends AgentExtension {
  /** Resolves when every scheduled episode is written (tests, shutdown). */
  idle(): Promise<void>;
}

/**
 * Episodic memory as an extension: after each turn, off the hot path, a one-paragraph
 * summary goes into the hybrid index; at the start of a turn the most relevant episodes
 * of other sessions are added to the system prompt.
 */
export function createEpisodicMemory(options: EpisodicMemoryOptions): EpisodicMemory {
  let pending: Promise<void> = Promise.resolve();
  const closing = new AbortController();
  const counters = new Map<string, number>();

  const write = async (context: TurnContext, stopReason: StopReason, transcript: string) => {
    const input: EpisodeInput = { sessionId: context.sessionId, intent: context.intent, transcript, stopReason };
    let text: EpisodeText;
    try {
      text = await options.summarize(input, closing.signal);
    } catch {
      text = { summary: extractiveSummary(input) };
    }
    const index = await options.index(context.cwd);
    const turn = (counters.get(context.sessionId) ?? 0) + 1;
    counters.set(context.sessionId, turn);
    const body = text.reflection ? `${text.summary}\nReflection: ${text.reflection}` : text.summary;
    await index.upsert([
      {
        id: `episode:${context.sessionId}:${Date.now()}:${turn}`,
        kind: 'episode',
        namespace: `episodes:${context.sessionId}`,
        fields: { name: context.intent.slice(0, 120) || 'turn', description: text.summary, body },
        payload: { sessionId: context.sessionId, at: new Date().toISOString(), summary: text.summary, reflection: text.reflection },
      },
    ]);
  };

  return {
    name: 'episodic-memory',
    async systemPrompt(context) {
      if (options.inject <= 0 || !context.intent.trim()) return undefined;
      const index = await options.index(context.cwd);
      const hits = await index.search(context.intent, { kinds: ['episode'], limit: options.inject * 3, signal: context.signal });
      const episodes = hits
        .filter((hit) => hit.document.namespace !== `episodes:${context.sessionId}`)
        .slice(0, options.inject)
        .map((hit) => `- ${hit.document.fields.body ?? hit.document.fields.description ?? ''}`);
      if (episodes.length === 0) return undefined;
      return `Episodes from earlier sessions that may be relevant:\n${episodes.join('\n')}`;
    },
    onTurnEnd(context, stopReason) {
      if (stopReason === 'cancelled') return;
      // Read the transcript now: the session moves on while the episode is written.
      const transcript = context.transcript?.() ?? context.intent;
      pending = pending.then(() => write(context, stopReason, transcript)).catch(() => undefined);
    },
    idle: () => pending,
    async close() {
      await pending;
      closing.abort();
    },
  };
}

function extractiveSummary(input: EpisodeInput): string {
  const text = input.transcript.replace(/\s+/g, ' ').trim();
  return `The user asked: ${input.intent.slice(0, 200)}. ${text.slice(-400)}`;
}
