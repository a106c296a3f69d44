import type * as acp from '@agentclientprotocol/sdk';

type Message = acp.AnyMessage & { id?: unknown; method?: unknown };

/**
 * Wraps one connection's message stream to see when it is idle: no message either
 * way for `idleMs` while no request is open in either direction (a long, quiet prompt
 * turn is not idle). `onIdle` fires once; the caller closes the connection.
 */
export function watchIdle(stream: acp.Stream, idleMs: number, onIdle: () => void): { stream: acp.Stream; stop(): void } {
  const open = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  const arm = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (stopped || open.size > 0) return;
    timer = setTimeout(() => {
      stopped = true;
      onIdle();
    }, idleMs);
    timer.unref();
  };

  // Requests are keyed by who sent them, so an id used by both sides never collides.
  const seen = (message: Message, from: 'client' | 'agent') => {
    const other = from === 'client' ? 'agent' : 'client';
    if (message.method !== undefined && message.id !== undefined && message.id !== null) open.add(`${from}:${String(message.id)}`);
    else if (message.method === undefined && message.id !== undefined) open.delete(`${other}:${String(message.id)}`);
    arm();
  };

  const inbound = new TransformStream<acp.AnyMessage, acp.AnyMessage>({
    transform(message, controller) {
      seen(message as Message, 'client');
      controller.enqueue(message);
    },
  });
  const outbound = new TransformStream<acp.AnyMessage, acp.AnyMessage>({
    transform(message, controller) {
      seen(message as Message, 'agent');
      controller.enqueue(message);
    },
  });
  void stream.readable.pipeTo(inbound.writable).catch(() => undefined);
  void outbound.readable.pipeTo(stream.writable).catch(() => undefined);
  arm();
  return {
    stream: { readable: inbound.readable, writable: outbound.writable },
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
