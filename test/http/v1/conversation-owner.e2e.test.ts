import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY } from '../../helpers/start-herald.js';
import { testApp, type TestApp } from '../app-fixture.js';

const SECOND_KEY = 'sk-second-0123456789abcdef0123';
const CARE_A = 'sk-care-a-0123456789abcdef0123';
const CARE_B = 'sk-care-b-0123456789abcdef0123';
let herald: TestApp;
let first: OpenAI;
let second: OpenAI;
let careA: OpenAI;
let careB: OpenAI;

beforeAll(async () => {
  herald = await testApp({
    agents: { list: [{ id: 'support' }, { id: 'second' }] },
    platform: {
      apiKeys: [
        { name: 'test', key: API_KEY },
        { name: 'second-only', key: SECOND_KEY, agents: ['second'] },
        { name: 'care-a', key: CARE_A, group: 'care' },
        { name: 'care-b', key: CARE_B, group: 'care' },
      ],
    },
  });
  const client = (apiKey: string) => new OpenAI({ baseURL: `${herald.origin}/v1`, fetch: herald.fetch, apiKey, maxRetries: 0 });
  [first, second, careA, careB] = [client(API_KEY), client(SECOND_KEY), client(CARE_A), client(CARE_B)];
});
afterAll(async () => herald?.stop());

type Chat = OpenAI.Chat.Completions.ChatCompletion & { conversation_id: string };
const ask = (as: OpenAI, content: string, conversationId?: string) =>
  as.chat.completions.create({ model: 'second', messages: [{ role: 'user', content }], ...(conversationId && { conversation_id: conversationId }) } as never) as unknown as Promise<Chat>;

describe('a conversation and a stored response belong to the key that started them', () => {
  it('404 for a conversation_id another key started, though that key may use the agent; a group of keys shares its own', async () => {
    const started = await ask(first, 'My order number is 4417.');
    expect((await ask(first, 'What is my order number?', started.conversation_id)).conversation_id).toBe(started.conversation_id);
    await expect(ask(second, 'What was the order number?', started.conversation_id)).rejects.toMatchObject({ status: 404, code: 'conversation_not_found' });
    // nothing of the refused request was added to the conversation
    const messages = await herald.gateway.store.sessions.messages(`chat:${started.conversation_id}`, 50);
    expect(messages.map((m) => m.content)).not.toContain('What was the order number?');

    const shared = await ask(careA, 'Ticket 88 is about a late parcel.');
    expect((await ask(careB, 'What is ticket 88 about?', shared.conversation_id)).conversation_id).toBe(shared.conversation_id);
    await expect(ask(first, 'And ticket 88?', shared.conversation_id)).rejects.toMatchObject({ status: 404 });
  });

  it("404 for another key's stored response: its file_search passages, its answer, and continuing it", async () => {
    const store = await first.vectorStores.create({ name: 'Private' });
    await first.vectorStores.files.uploadAndPoll(store.id, await toFile(Buffer.from('# Salaries\n\nThe salary band for level 3 is 70,000 to 85,000.\n'), 'salaries.md'));
    // the second key may not see the store
    await expect(second.vectorStores.retrieve(store.id)).rejects.toMatchObject({ status: 404 });

    const made = await first.responses.create({
      model: 'second',
      input: 'What is the salary band for level 3?',
      tools: [{ type: 'file_search', vector_store_ids: [store.id] }],
      include: ['file_search_call.results'],
    });
    const found = made.output.find((i) => i.type === 'file_search_call') as OpenAI.Responses.ResponseFileSearchToolCall;
    expect(found.results?.[0]?.text).toContain('70,000');
    expect((await first.responses.retrieve(made.id)).id).toBe(made.id);

    await expect(second.responses.retrieve(made.id)).rejects.toMatchObject({ status: 404, code: 'response_not_found' });
    await expect(second.responses.create({ model: 'second', input: 'Repeat what you found.', previous_response_id: made.id })).rejects.toMatchObject({ status: 404, code: 'response_not_found' });
    await expect(second.responses.delete(made.id)).rejects.toMatchObject({ status: 404 });
    expect((await first.responses.retrieve(made.id)).id).toBe(made.id);

    const groupMade = await careA.responses.create({ model: 'support', input: 'Remember: the code word is heron.' });
    expect((await careB.responses.create({ model: 'support', input: 'What is the code word?', previous_response_id: groupMade.id })).previous_response_id).toBe(groupMade.id);
    await expect(first.responses.retrieve(groupMade.id)).rejects.toMatchObject({ status: 404 });
  });
});
