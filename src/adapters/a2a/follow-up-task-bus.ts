import { EventEmitter } from 'node:events';
import type { AgentExecutionEvent, ExecutionEventBus } from '@a2a-js/sdk/server';

type EventListener = (event: AgentExecutionEvent) => void;
type FinishedListener = () => void;

/**
 * The bus a second request on a task whose turn runs gets (an answer to its question, a steer):
 * the turn's events reach it as they reach every listener of the task, but the task snapshot it
 * publishes first (the SDK wants one to open each request) and its own end stay with it. On the
 * task's shared bus, that snapshot ended every other open `message/stream` of the task with
 * "Stream ordering violation: received task in task lifecycle stream". A message published as the
 * request's reply stays with it too.
 */
export class FollowUpTaskBus implements ExecutionEventBus {
  readonly #own = new EventEmitter();

  constructor(readonly shared: ExecutionEventBus) {}

  publish(event: AgentExecutionEvent): void {
    // Its task snapshot, or a reply to its message alone (one the task did not take).
    if (event.kind === 'task' || event.kind === 'message') this.#own.emit('event', event);
    else this.shared.publish(event);
  }

  /** This request is answered; the turn and its other listeners go on. */
  finished(): void {
    this.#own.emit('finished');
  }

  on(eventName: 'event' | 'finished', listener: EventListener | FinishedListener): this {
    this.#own.on(eventName, listener);
    this.shared.on(eventName as 'event', listener as EventListener);
    return this;
  }

  off(eventName: 'event' | 'finished', listener: EventListener | FinishedListener): this {
    this.#own.off(eventName, listener);
    this.shared.off(eventName as 'event', listener as EventListener);
    return this;
  }

  once(eventName: 'event' | 'finished', listener: EventListener | FinishedListener): this {
    // Whichever comes first; the other registration is dropped with it.
    const both = (...args: unknown[]) => {
      this.off(eventName, both as EventListener);
      (listener as (...values: unknown[]) => void)(...args);
    };
    return this.on(eventName, both as EventListener);
  }

  /** Only this request's listeners: the task's own bus keeps those of the turn and of other peers. */
  removeAllListeners(eventName?: 'event' | 'finished'): this {
    for (const name of eventName ? [eventName] : (['event', 'finished'] as const)) {
      for (const listener of this.#own.listeners(name)) this.off(name, listener as EventListener);
    }
    return this;
  }
}
