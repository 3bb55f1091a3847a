/** told each server-sent event: its data lines joined by `\n`, and its type (`message` unless an `event:` line named it) */
export type SseEventSink = (data: string, event: string) => void;

/**
 * The event-stream format as the WHATWG HTML standard parses it
 * (https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation),
 * fed with text as it arrives: lines end in `\r\n`, `\n` or `\r` (a `\r` at the end of one piece
 * and `\n` at the start of the next are one line end), `:` starts a comment, `data:` lines
 * accumulate, an empty line dispatches, a leading BOM is dropped, `id` and `retry` are ignored
 * (a chat completion is never resumed). On plain strings rather than web streams, and each event
 * handed to the sink as its empty line is read, its data a slice of the text read: this runs for
 * every streamed token herald passes on, so a piece is scanned once, with no array, event object
 * or field name made per event. A sink that throws stops the piece (the decoder is then spent).
 */
export class SseDecoder {
  private buffer = '';
  private started = false;
  /** the last piece ended in `\r`: a `\n` starting the next one belongs to that line end */
  private skipLineFeed = false;
  private data = '';
  private hasData = false;
  private event = '';

  constructor(private readonly sink: SseEventSink) {}

  /** decodes the next piece of text, handing the sink the events it completes, in order */
  push(text: string): void {
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
      this.line(s, start, end);
      start = next;
      if (lf !== -1 && lf < start) lf = s.indexOf('\n', start);
      if (cr !== -1 && cr < start) cr = s.indexOf('\r', start);
    }
    this.buffer = start === s.length ? '' : s.slice(start);
  }

  private line(s: string, start: number, end: number): void {
    if (start === end) {
      // an empty line: dispatch (an event without data lines is dropped, as the standard says)
      const { data, hasData, event } = this;
      this.data = '';
      this.hasData = false;
      this.event = '';
      if (hasData) this.sink(data, event || 'message');
      return;
    }
    const first = s.charCodeAt(start);
    if (first === 58 /* : a comment */) return;
    const colon = s.indexOf(':', start);
    const fieldEnd = colon === -1 || colon > end ? end : colon;
    let valueStart = fieldEnd === end ? end : fieldEnd + 1;
    if (valueStart < end && s.charCodeAt(valueStart) === 32) valueStart++;
    // the field's name compared where it stands, not sliced out
    const length = fieldEnd - start;
    if (length === 4 && first === 100 /* d */ && s.startsWith('data', start)) {
      const value = s.slice(valueStart, end);
      this.data = this.hasData ? `${this.data}\n${value}` : value;
      this.hasData = true;
    } else if (length === 5 && first === 101 /* e */ && s.startsWith('event', start)) this.event = s.slice(valueStart, end);
  }
}
