/**
 * What may not reach a terminal as it is: the C0 controls but newline and tab, DEL, the C1
 * controls (0x9b is a one-byte CSI), and the marks that reorder or isolate bidirectional text.
 */
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Text the model, a tool, a file or a server wrote, made safe to show on a terminal (the chat,
 * `-p`, and every client that prints a tool call's title or a permission option): each unsafe
 * character is written as its `\uXXXX` escape, visible, instead of acting. Raw, an escape
 * sequence can erase or rewrite what the screen shows (the command in a permission question),
 * reorder it, or reach the terminal's own features (OSC 52 sets the clipboard, OSC 0 the title).
 * A line ending `\r\n` is kept as `\n`. Lossless inside JSON text (the escape is JSON's own).
 */
export function terminalSafe(text: string): string {
  return text.replace(/\r\n/g, '\n').replace(UNSAFE, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

