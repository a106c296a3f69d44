import { randomUUID } from 'node:crypto';
import type { LanguageModelV3StreamPart } from '@ai-sdk/provider';

/**
 * Turns a local generation's callbacks into AI SDK v3 stream parts with consistent ids: text
 * blocks open on their first delta and close before a tool call; a tool call's streamed input
 * and its final call share one id.
 */
export class StreamPartWriter {
  private textId: string | undefined;
  private readonly toolIds = new Map<number, { id: string; name: string; ended: boolean }>();

  constructor(private readonly emit: (part: LanguageModelV3StreamPart) => void) {}

  text(delta: string): void {
    if (!delta) return;
    if (!this.textId) {
      this.textId = `text-${randomUUID()}`;
      this.emit({ type: 'text-start', id: this.textId });
    }
    this.emit({ type: 'text-delta', id: this.textId, delta });
  }

  endText(): void {
    if (!this.textId) return;
    this.emit({ type: 'text-end', id: this.textId });
    this.textId = undefined;
  }

  /** Streamed arguments of the call with this index (the JSON text arrives in chunks). */
  toolInputDelta(index: number, name: string, delta: string): void {
    this.endText();
    let entry = this.toolIds.get(index);
    if (!entry) {
      entry = { id: `call_${randomUUID()}`, name, ended: false };
      this.toolIds.set(index, entry);
      this.emit({ type: 'tool-input-start', id: entry.id, toolName: name });
    }
    if (delta) this.emit({ type: 'tool-input-delta', id: entry.id, delta });
  }

  /** The finished call; `input` is its JSON-encoded arguments. */
  toolCall(index: number, name: string, input: string): void {
    this.endText();
    let entry = this.toolIds.get(index);
    if (!entry) {
      this.toolInputDelta(index, name, input);
      entry = this.toolIds.get(index)!;
    }
    if (!entry.ended) {
      entry.ended = true;
      this.emit({ type: 'tool-input-end', id: entry.id });
    }
    this.emit({ type: 'tool-call', toolCallId: entry.id, toolName: name, input });
  }

  finish(): void {
    this.endText();
  }
}
