/** One server-sent event: its type (`message` unless an `event:` line named it) and its data lines joined by `\n`. */
export interface SseEvent {
  event: string;
  data: string;
}

/**
 * The event-stream format as the WHATWG HTML standard parses it
 * (https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation),
 * fed with text as it arrives: lines end in `\r\n`, `\n` or `\r` (a `\r` at the end of one piece
 * and `\n` at the start of the next are one line end), `:` starts a comment, `data:` lines
 * accumulate, an empty line dispatches, a leading BOM is dropped, `id` and `retry` are ignored
 * (a chat completion is never resumed). On plain strings rather than web streams: this runs for
 * every streamed token herald passes on.
 */
export class SseDecoder {
  private buffer = '';
  private started = false;
  /** the last piece ended in `\r`: a `\n` starting the next one belongs to that line end */
  private skipLineFeed = false;
  private data = '';
  private hasData = false;
  private event = '';

  /** decodes the next piece of text; returns the events it completed, in order */
  push(text: string): SseEvent[] {
    const events: SseEvent[] = [];
    let s = this.buffer ? this.buffer + text : text;
    if (!this.started && s.length) {
      this.started = true;
      if (s.charCodeAt(0) === 0xfeff) s = s.slice(1);
    }
    let start = 0;
    if (this.skipLineFeed && s.length) {
      this.skipLineFeed = false;
      if (s.charCodeAt(0) === 10) start = 1;
    }
    let lf = s.indexOf('\n', start);
    let cr = s.indexOf('\r', start);
    while (lf !== -1 || cr !== -1) {
      let end: number;
      let next: number;
      if (cr !== -1 && (lf === -1 || cr < lf)) {
        end = cr;
        if (cr + 1 === s.length) {
          next = cr + 1;
          this.skipLineFeed = true;
        } else next = s.charCodeAt(cr + 1) === 10 ? cr + 2 : cr + 1;
      } else {
        end = lf;
        next = lf + 1;
      }
      this.line(s, start, end, events);
      start = next;
      if (lf !== -1 && lf < start) lf = s.indexOf('\n', start);
      if (cr !== -1 && cr < start) cr = s.indexOf('\r', start);
    }
    this.buffer = start === s.length ? '' : s.slice(start);
    return events;
  }

  private line(s: string, start: number, end: number, events: SseEvent[]): void {
    if (start === end) {
      // an empty line: dispatch (an event without data lines is dropped, as the standard says)
      if (this.hasData) events.push({ event: this.event || 'message', data: this.data });
      this.data = '';
      this.hasData = false;
      this.event = '';
      return;
    }
    if (s.charCodeAt(start) === 58 /* : a comment */) return;
    const colon = s.indexOf(':', start);
    const fieldEnd = colon === -1 || colon > end ? end : colon;
    let valueStart = fieldEnd === end ? end : fieldEnd + 1;
    if (valueStart < end && s.charCodeAt(valueStart) === 32) valueStart++;
    const field = s.slice(start, fieldEnd);
    if (field === 'data') {
      const value = s.slice(valueStart, end);
      this.data = this.hasData ? `${this.data}\n${value}` : value;
      this.hasData = true;
    } else if (field === 'event') this.event = s.slice(valueStart, end);
  }
}
