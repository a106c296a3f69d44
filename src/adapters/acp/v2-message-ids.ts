import { randomUUID } from 'node:crypto';

type ChunkKind = 'agent' | 'thought';

/**
 * The draft's message ids for one stream of events (a live turn, or a replay): a user message
 * keeps the id its prompt was answered with (stored on its event); each run of agent text or
 * of thought after something else is a new message, numbered after that user message. Live and
 * replay number the same stored events alike, so a replayed agent message keeps its id too.
 */
export class V2MessageIds {
  #user: string = randomUUID();
  #count = 0;
  #open: ChunkKind | undefined;
  #id = '';

  /** A user message: its stored id, or a new one for an event stored before ids were. */
  user(messageId: string | undefined): string {
    this.#user = messageId ?? randomUUID();
    this.#count = 0;
    this.#open = undefined;
    return this.#user;
  }

  /** The id of a chunk of `kind`, and whether it starts a new message. */
  chunk(kind: ChunkKind): { messageId: string; first: boolean } {
    if (this.#open === kind) return { messageId: this.#id, first: false };
    this.#open = kind;
    this.#id = `${this.#user}-${kind === 'agent' ? 'a' : 't'}${this.#count++}`;
    return { messageId: this.#id, first: true };
  }

  /** Anything that is not a chunk ends the open message. */
  other(): void {
    this.#open = undefined;
  }
}
