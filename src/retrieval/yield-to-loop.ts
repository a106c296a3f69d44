import { setImmediate } from 'node:timers/promises';

/** How many items a long synchronous pass handles before it lets the event loop turn. */
export const ITEMS_PER_TURN = 100;

/**
 * Lets the event loop turn (I/O, timers, other requests) before a long pass goes on: indexing
 * a catalog of thousands of tools is split into slices of ITEMS_PER_TURN with this between them.
 */
export function yieldToLoop(): Promise<void> {
  return setImmediate();
}
