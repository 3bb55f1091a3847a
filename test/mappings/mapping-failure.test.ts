import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { redactedCause, REDACTED } from '../../src/mappings/mapping-failure.js';
import { stackFrames, transformLocation } from '../../src/mappings/transforms/transform-stack.js';
import { tempDir } from '../helpers/start-herald.js';

const request = (payload: unknown, headers: Record<string, string> = {}, query: Record<string, string> = {}) => ({ payload, headers, query });

describe('the cause a receipt records', () => {
  it('takes out every value of the request it quotes, in any case, quoted or not, longest first', () => {
    const r = request({ customer: { email: 'ann@example.com', tags: ['vip-gold'] }, total: 123456, ok: true, id: 'ab' }, { 'x-shop': 'north-store' }, { ref: 'campaign-9' });
    expect(redactedCause('bad email "ann@example.com" for VIP-GOLD at north-store (campaign-9): 123456', r)).toBe(
      `bad email "${REDACTED}" for ${REDACTED} at ${REDACTED} (${REDACTED}): ${REDACTED}`,
    );
    // values shorter than 4 characters stay: the message would be unreadable otherwise
    expect(redactedCause('id ab is not ok', r)).toBe('id ab is not ok');
    // a value holding a shorter one goes whole
    expect(redactedCause('name Ann Smith', request({ first: 'Ann Smith', nick: 'Smith' }))).toBe(`name ${REDACTED}`);
    // a string with a quote or a newline, as a JSON rendering quotes it
    expect(redactedCause('value "say \\"hi\\"\\nnow"', request({ s: 'say "hi"\nnow' }))).toBe(`value "${REDACTED}"`);
  });

  it("takes out a computed value named by the error, and cuts the cause to 300 characters", () => {
    expect(redactedCause('Unable to cast value to a number: "SECRET-X"', request({ code: 'secret-x' }), ['SECRET-X'])).toBe(`Unable to cast value to a number: "${REDACTED}"`);
    expect(redactedCause('cast "ZZZZ-1"', request({}), ['ZZZZ-1'])).toBe(`cast "${REDACTED}"`);
    expect(redactedCause('x'.repeat(400), request({}))).toHaveLength(301);
  });
});

describe("a transform's file:line", () => {
  it('reads file frames of a stack, file URLs with a version query included', () => {
    const stack = [
      'Error: no',
      '    at check (file:///srv/herald/transforms/lib/check.mjs?v=1-2-3:7:11)',
      '    at default (/srv/herald/transforms/orders.js:3:5)',
      '    at node:internal/process/task_queues:95:5',
    ].join('\n');
    expect(stackFrames(stack)).toEqual([
      { file: '/srv/herald/transforms/lib/check.mjs', line: 7 },
      { file: '/srv/herald/transforms/orders.js', line: 3 },
    ]);
  });

  it('names the topmost frame inside the transforms folder, relative to it; none when no frame is', () => {
    const dir = tempDir();
    const transforms = path.join(dir, 'transforms');
    fs.mkdirSync(transforms);
    const frames = [
      { file: '/usr/lib/node_modules/x/index.js', line: 1 },
      { file: path.join(transforms, 'lib', 'check.mjs'), line: 7 },
      { file: path.join(transforms, 'orders.mjs'), line: 3 },
    ];
    expect(transformLocation({ frames }, transforms)).toBe('lib/check.mjs:7');
    expect(transformLocation({ frames: frames.slice(0, 1) }, transforms)).toBeUndefined();
    expect(transformLocation(new Error('timed out'), transforms)).toBeUndefined();
    // a folder beside it with a longer name is not inside it
    expect(transformLocation({ frames: [{ file: `${transforms}-old/orders.mjs`, line: 2 }] }, transforms)).toBeUndefined();
  });
});

describe('a long cause', () => {
  it('is searched in its first 2,000 characters only, never ending on part of a value', () => {
    const secret = 'a-value-of-the-payload-0123456789';
    const message = `${'word '.repeat(399)}${secret} ${'x'.repeat(1_000_000)}`;
    const cause = redactedCause(message, request({ v: secret }));
    expect(cause).not.toContain('a-value');
    expect(cause.length).toBeLessThanOrEqual(301);
  });
});
