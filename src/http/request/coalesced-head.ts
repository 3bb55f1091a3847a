import type { ServerResponse } from 'node:http';
import type { Context } from 'hono';

/**
 * A streamed answer's head sent with its first chunk. The node adapter flushes a streamed
 * response's head by itself (one write to the socket) and then writes each chunk (another), though
 * an event stream's first event (/mcp's priming event) is often ready at once. Node's response
 * is corked until the event loop's next turn, so the head and whatever is written by then leave
 * in one write; a chunk written later goes out as it comes.
 */
export function coalesceHead(c: Context): void {
  const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
  if (typeof outgoing?.cork !== 'function') return;
  outgoing.cork();
  setImmediate(() => outgoing.uncork());
}
