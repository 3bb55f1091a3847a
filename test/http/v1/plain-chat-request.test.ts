import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chatRequestSchema } from '../../../src/http/v1/chat/chat-request-schema.js';
import { parseChatRequest } from '../../../src/http/v1/chat/chat-request.js';
import { plainChatRequest } from '../../../src/http/v1/chat/plain-chat-request.js';

/** values near every edge the schema checks: wrong types, bounds, empty strings, odd keys */
const value = fc.oneof(
  fc.constantFrom(null, true, false, 0, -0, 1, 2, 2.5, -1, 0.5, 256, 2 ** 53, 1e300, 1.5, '', 'x', 'agent', 'user', 'tool', 'function', '__proto__'),
  fc.string({ maxLength: 3 }),
  fc.string({ minLength: 255, maxLength: 258 }),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constant({}),
  fc.constant([]),
  fc.dictionary(fc.constantFrom('a', 'include_usage', '__proto__', 'b'), fc.oneof(fc.string({ maxLength: 2 }), fc.boolean(), fc.integer()), { maxKeys: 3 }),
);
/** mostly a value the schema takes, now and then one near an edge */
const mostly = <T>(valid: fc.Arbitrary<T>) => fc.oneof({ arbitrary: valid, weight: 15 }, { arbitrary: value, weight: 1 });
const role = mostly(fc.oneof({ arbitrary: fc.constantFrom('system', 'developer', 'user', 'assistant'), weight: 8 }, fc.constantFrom('tool', 'function', 'robot')));
const message = fc.oneof(
  { arbitrary: fc.record({ role, content: mostly(fc.string({ maxLength: 8 })) }), weight: 20 },
  fc.record({ role, content: fc.string({ maxLength: 8 }), name: mostly(fc.string({ maxLength: 4 })) }),
  fc.record({ role, content: fc.oneof(fc.constant([{ type: 'text', text: 'hi' }]), fc.constant(null)), tool_call_id: fc.string({ maxLength: 4 }) }, { requiredKeys: ['role'] }),
  fc.dictionary(fc.constantFrom('role', 'content', 'name', 'extra', '__proto__'), value, { maxKeys: 4 }),
);
const fields = {
  model: mostly(fc.constantFrom('agent', 'agent', 'agent', '')),
  messages: mostly(fc.array(message, { minLength: 0, maxLength: 3 })),
  stream: mostly(fc.boolean()),
  stream_options: mostly(fc.record({ include_usage: mostly(fc.boolean()) }, { requiredKeys: [] })),
  temperature: mostly(fc.double({ min: 0, max: 2, noNaN: true })),
  max_tokens: mostly(fc.integer({ min: 1, max: 5000 })),
  max_completion_tokens: mostly(fc.integer({ min: 1, max: 5000 })),
  user: mostly(fc.string({ maxLength: 10 })),
  metadata: mostly(fc.dictionary(fc.constantFrom('a', 'b', '__proto__'), mostly(fc.string({ maxLength: 3 })), { maxKeys: 3 })),
  conversation_id: mostly(fc.constantFrom('conv_1', '', null)),
  citations: mostly(fc.boolean()),
  store: mostly(fc.boolean()),
};
/** now and then a field outside the fast path (tools, n, top_p) */
const others = fc.oneof({ arbitrary: fc.constant({}), weight: 8 }, fc.record({ tools: fc.constant([]), n: fc.constantFrom(1, 2), top_p: fc.double() }, { requiredKeys: [] }));
const chatBody = fc.tuple(fc.record(fields, { requiredKeys: ['model', 'messages'] }), others).map(([plain, other]) => ({ ...plain, ...other }));
/** a request as it arrives: JSON text parsed (no undefined, no NaN, own __proto__ keys) */
const asReceived = (body: unknown) => JSON.parse(JSON.stringify(body)) as unknown;

describe('the fast check of plain chat requests', () => {
  it('takes only what the schema takes, and as the schema parses it', () => {
    let taken = 0;
    fc.assert(
      fc.property(chatBody, (generated) => {
        const body = asReceived(generated);
        const fast = plainChatRequest(body);
        if (fast === undefined) return;
        taken++;
        const parsed = chatRequestSchema().safeParse(asReceived(generated));
        expect(parsed.success).toBe(true);
        expect(fast).toStrictEqual(parsed.data);
      }),
      { numRuns: 3000 },
    );
    // the property says something only if the generator reaches the fast path often enough
    expect(taken).toBeGreaterThan(100);
  });

  it('agrees with the schema path on accept and reject, and on the parsed value', () => {
    const slow = (body: unknown) => {
      try {
        return { ok: true, value: parseChatRequest({ ...(body as object), __slow: true }) };
      } catch (error) {
        return { ok: false, error };
      }
    };
    fc.assert(
      fc.property(chatBody, (generated) => {
        const body = asReceived(generated);
        let fast: { ok: boolean; value?: unknown };
        try {
          fast = { ok: true, value: parseChatRequest(body) };
        } catch {
          fast = { ok: false };
        }
        // a field the fast check does not know sends the same body through the schema
        const viaSchema = body && typeof body === 'object' && !Array.isArray(body) ? slow(body) : { ok: false };
        expect(fast.ok).toBe(viaSchema.ok);
        if (fast.ok) {
          const { __slow: _, ...value } = (viaSchema as { value: Record<string, unknown> }).value;
          expect(fast.value).toStrictEqual(value);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('takes the plain requests clients send', () => {
    const plain = [
      { model: 'agent', messages: [{ role: 'user', content: 'How are you today?' }] },
      { model: 'agent', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi' }], stream: true, stream_options: { include_usage: true } },
      { model: 'agent', messages: [{ role: 'user', content: 'Hi' }], temperature: 0.2, max_tokens: 100, user: 'u1', conversation_id: null, citations: false, metadata: { a: 'b' } },
    ];
    for (const body of plain) expect(plainChatRequest(body)).toBe(body);
    expect(plainChatRequest({ model: 'agent', messages: [{ role: 'tool', content: 'x', tool_call_id: 'c' }] })).toBeUndefined();
    expect(plainChatRequest({ model: 'agent', messages: [{ role: 'user', content: 'x' }], tools: [] })).toBeUndefined();
  });
});
