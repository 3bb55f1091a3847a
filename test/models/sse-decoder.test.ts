import { describe, expect, it } from 'vitest';
import { SseDecoder } from '../../src/models/providers/sse-decoder.js';

const decodeAll = (pieces: string[]): { event: string; data: string }[] => {
  const events: { event: string; data: string }[] = [];
  const decoder = new SseDecoder((data, event) => events.push({ event, data }));
  for (const piece of pieces) decoder.push(piece);
  return events;
};

// the event-stream format: https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation
describe('SSE decoder', () => {
  it('joins data lines with \\n, reads the event type, skips comments and other fields', () => {
    const text = ': keep-alive\n\nevent: error\ndata: {"a":\ndata:1}\nid: 7\nretry: 10\ndatas: no\nevents: no\nDATA: no\n\ndata\n\ndata: [DONE]\n\n';
    expect(decodeAll([text])).toEqual([
      { event: 'error', data: '{"a":\n1}' },
      { event: 'message', data: '' },
      { event: 'message', data: '[DONE]' },
    ]);
  });

  it('ends lines at \\r\\n, \\n or \\r alike, a \\r\\n split between two pieces included', () => {
    const events = [{ event: 'message', data: 'one' }, { event: 'message', data: 'two' }, { event: 'message', data: 'three' }];
    expect(decodeAll(['data: one\r\n\r\ndata: two\n\ndata: three\r\r'])).toEqual(events);
    expect(decodeAll(['data: one\r', '\n\r', '\ndata: two\n', '\ndata: three\r', '\r'])).toEqual(events);
  });

  it('drops a leading byte-order mark, an event with no data, and an event the stream ends inside', () => {
    expect(decodeAll(['\uFEFFdata: x\n\nevent: lonely\n\ndata: cut off'])).toEqual([{ event: 'message', data: 'x' }]);
  });

  it('gives the same events however the text is cut', () => {
    const text = 'data: {"choices":[{"delta":{"content":"héllo 日本"}}]}\r\n\r\n: ping\n\nevent: x\ndata: a\ndata: b\r\rdata: [DONE]\n\n';
    const whole = decodeAll([text]);
    expect(whole).toHaveLength(3);
    for (let cut = 0; cut <= text.length; cut++) expect(decodeAll([text.slice(0, cut), text.slice(cut)])).toEqual(whole);
    expect(decodeAll([...text])).toEqual(whole);
  });
});
