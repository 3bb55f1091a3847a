import { describe, expect, it } from 'vitest';
import { danglingText, stringsOf } from './dangling-text.js';

describe('danglingText', () => {
  it.each([
    ['Bug in , status , priority , assignee none', 'a space before a comma'],
    ['Payment failed for cus_X (cus_X):', 'a value repeated in brackets'],
    ['Alerts ', 'a line ending in whitespace'],
    ['Zoom meeting "" () ended', 'empty brackets or quotes'],
    ['Slack message from <@> in C1', 'empty brackets or quotes'],
    ['Vercel  (production): succeeded', 'two spaces where a word was'],
    ['dealstage = null', '"null"'],
    ['Issue undefined', '"undefined"'],
    ['Pull request #2 merged\n\n', 'whitespace at its end'],
  ])('finds the dangling text of %j', (text, what) => {
    expect(danglingText('message', text).join('\n')).toContain(what);
  });

  it('passes a message that says only what was sent', () => {
    expect(danglingText('message', 'Payment failed for ada@example.com (cus_X):\ninvoice A-7, 12.00 EUR\n\nhttps://x/y')).toEqual([]);
  });

  it("takes the sender's own words out before reading", () => {
    const payload = { exception: 'TypeError: x is undefined', form: 'payload={"text":"a  b"}' };
    expect(danglingText('message', 'Error in app: TypeError: x is undefined', stringsOf(payload))).toEqual([]);
    expect(danglingText('message', 'said: a  b', stringsOf({ payload: '{"text":"a  b"}' }))).toEqual([]);
    expect(danglingText('message', 'TypeError: x is undefined at null', stringsOf(payload))).toEqual([expect.stringContaining('"null"')]);
  });
});
