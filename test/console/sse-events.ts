/** One server-sent event as the stream carried it. */
export interface SseEvent {
  event: string;
  data: string;
}

/**
 * Reads a text/event-stream body event by event (the wire format of
 * https://html.spec.whatwg.org/multipage/server-sent-events.html#parsing-an-event-stream:
 * `event:` and `data:` lines, a blank line ends an event, `:` lines are comments).
 */
export class SseReader {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();
  private buffer = '';
  /** every event read so far, in order */
  readonly seen: SseEvent[] = [];

  constructor(body: ReadableStream<Uint8Array>) {
    this.reader = body.getReader();
  }

  private take(): SseEvent | undefined {
    for (;;) {
      const end = this.buffer.indexOf('\n\n');
      if (end < 0) return undefined;
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
      if (data.length) return { event, data: data.join('\n') };
    }
  }

  /** the next event (of this name, when given); throws when the stream ends first */
  async next(name?: string): Promise<SseEvent> {
    for (;;) {
      const ready = this.take();
      if (ready) {
        this.seen.push(ready);
        if (name === undefined || ready.event === name) return ready;
        continue;
      }
      const { value, done } = await this.reader.read();
      if (done) throw new Error('the event stream ended');
      this.buffer += this.decoder.decode(value, { stream: true }).replace(/\r\n?/g, '\n');
    }
  }

  /** reads events until `check` holds for one of them (parsed JSON data), and returns it */
  async until<T = any>(name: string, check: (data: T) => boolean): Promise<T> {
    for (;;) {
      const data = JSON.parse((await this.next(name)).data) as T;
      if (check(data)) return data;
    }
  }

  async close(): Promise<void> {
    await this.reader.cancel().catch(() => {});
  }
}
