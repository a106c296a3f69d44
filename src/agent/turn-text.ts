/**
 * The text a turn shows, step after step. A step's first text after an earlier step's begins a
 * new paragraph, so a client, `-p` and a task's artifact read "I'll open it.\n\nIt says…", not
 * "I'll open it.It says…" (each step's text is its own block: a model does not end one with the
 * break). The model's history is unchanged: each step's reply is a message of its own.
 */
export class TurnText {
  /** The last character shown. */
  #tail = '';
  #stepShown = false;

  /** A step begins. */
  step(): void {
    this.#stepShown = false;
  }

  /** The delta as shown: with the break it needs when it is its step's first text. */
  show(text: string): string {
    let shown = text;
    // A step that ended on a line break of its own (a tool call's text cut out) needs none more.
    if (!this.#stepShown && this.#tail !== '' && !this.#tail.endsWith('\n')) {
      const missing = 2 - leadingBreaks(text);
      if (missing > 0) shown = '\n'.repeat(missing) + text;
    }
    if (text !== '') this.#stepShown = true;
    this.#tail = (this.#tail + shown).slice(-1);
    return shown;
  }
}

function leadingBreaks(text: string): number {
  return text.startsWith('\n\n') ? 2 : text.startsWith('\n') ? 1 : 0;
}
