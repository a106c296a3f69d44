import type * as acp from '@agentclientprotocol/sdk';
import type { AgentOutput, ContentPart } from '../../contracts/agent-output.js';
import { validateContentParts } from '../../agent/validate-content-parts.js';
import { toSessionUpdate, userMessageUpdates, type UpdateContext } from './acp-session-update.js';

type TextChunkKind = 'user_message_chunk' | 'agent_message_chunk' | 'agent_thought_chunk';

/**
 * A stored history as the `session/update`s of `session/load`, with adjacent text chunks of
 * one kind merged into one: a stream stored as thousands of deltas, or a prompt of thousands
 * of text blocks, replays as a handful of notifications instead of one per piece.
 */
export function replayUpdates(history: readonly AgentOutput[], context: UpdateContext): acp.SessionUpdate[] {
  const updates: acp.SessionUpdate[] = [];
  let open: { kind: TextChunkKind; pieces: string[] } | undefined;
  const flush = () => {
    if (!open) return;
    updates.push({ sessionUpdate: open.kind, content: { type: 'text', text: open.pieces.join('') } } as acp.SessionUpdate);
    open = undefined;
  };
  for (const event of history) {
    // Two prompts in a row stay two messages.
    if (event.type === 'user-message') flush();
    const produced = event.type === 'user-message' ? userMessageUpdates(event.content.map(replayablePart)) : [toSessionUpdate(event, context)];
    for (const update of produced) {
      if (!update) continue;
      const text = textChunk(update);
      if (text) {
        if (open && open.kind !== text.kind) flush();
        open ??= { kind: text.kind, pieces: [] };
        open.pieces.push(text.text);
        continue;
      }
      flush();
      updates.push(update);
    }
  }
  flush();
  return updates;
}

function textChunk(update: acp.SessionUpdate): { kind: TextChunkKind; text: string } | undefined {
  if (update.sessionUpdate !== 'user_message_chunk' && update.sessionUpdate !== 'agent_message_chunk' && update.sessionUpdate !== 'agent_thought_chunk') {
    return undefined;
  }
  // Chunks with annotations or _meta carry more than text: they stay as they are.
  const content = update.content as { type: string; text?: string; annotations?: unknown; _meta?: unknown };
  if (content.type !== 'text' || typeof content.text !== 'string' || content.annotations != null || content._meta != null || update._meta != null) return undefined;
  return { kind: update.sessionUpdate, text: content.text };
}

/** A stored block no client could decode (saved before prompts were validated) replays as a note. */
function replayablePart(part: ContentPart): ContentPart {
  if (part.type !== 'image' && part.type !== 'resource') return part;
  if (!validateContentParts([part])) return part;
  return { type: 'text', text: `[${part.type === 'image' ? 'an image' : 'a resource'} was removed from this message: its data was not valid]` };
}
