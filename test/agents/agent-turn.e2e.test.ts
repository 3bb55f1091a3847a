import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY, hookHeaders } from '../helpers/start-herald.js';
import { testApp, type TestApp } from '../http/app-fixture.js';
import { startFakeUpstream } from '../http/v1/fake-openai-upstream.js';

/**
 * The one agent turn (src/agents/agent-turn.ts) behind chat completions, hook runs and
 * heartbeats, through `app.request()`; the model is a fake OpenAI-compatible server speaking
 * the Chat Completions API (https://platform.openai.com/docs/api-reference/chat/create).
 */
let upstream: Awaited<ReturnType<typeof startFakeUpstream>>;
beforeAll(async () => {
  upstream = await startFakeUpstream();
});
afterAll(async () => {
  await upstream?.close();
});

function appOnUpstream(defaults: Record<string, unknown> = {}): Promise<TestApp> {
  return testApp({
    models: { providers: { up: { api: 'openai', baseUrl: `${upstream.url}/v1` } } },
    agents: { defaults: { model: 'up/gpt-test', ...defaults }, list: [{ id: 'main' }] },
  });
}

async function chat(app: TestApp, body: Record<string, unknown>) {
  const res = await app.request('/v1/chat/completions', {
    method: 'POST',
    headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'main', ...body }),
  });
  return { status: res.status, text: await res.text(), conversationId: res.headers.get('x-conversation-id') };
}

const stored = async (app: TestApp, session: string) => (await app.gateway.store.sessions.messages(session)).map((m) => `${m.role}: ${m.content}`);
/** the messages the model was sent in its latest request, as role: content */
const lastSent = () => (upstream.requests.at(-1)!.json.messages as { role: string; content: string }[]).map((m) => `${m.role}: ${m.content}`);

describe('the agent turn', () => {
  it('stores a chat turn whole: the question with its answer, nothing when the model fails', async () => {
    const app = await appOnUpstream();
    upstream.reply({ text: 'first answer' });
    const first = await chat(app, { messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'q1' }] });
    expect(first.status).toBe(200);
    const session = `chat:${first.conversationId}`;
    expect(await stored(app, session)).toEqual(['system: Be brief.', 'user: q1', 'assistant: first answer']);

    upstream.reply({ status: 500, text: '' });
    const failed = await chat(app, { conversation_id: first.conversationId, messages: [{ role: 'user', content: 'q2' }] });
    expect(failed.status).toBe(502);
    // the question of a failed turn is not left behind without its answer
    expect(await stored(app, session)).toEqual(['system: Be brief.', 'user: q1', 'assistant: first answer']);
  });

  it('streams a chat turn and stores it at the end; a stream that breaks stores nothing', async () => {
    const app = await appOnUpstream();
    upstream.stream({ deltas: ['Hello', ' there'] });
    const streamed = await chat(app, { messages: [{ role: 'user', content: 'hi' }], stream: true });
    expect(streamed.status).toBe(200);
    expect(streamed.text).toContain('"content":" there"');
    expect(streamed.text.trim().endsWith('data: [DONE]')).toBe(true);
    const session = `chat:${streamed.conversationId}`;
    expect(await stored(app, session)).toEqual(['user: hi', 'assistant: Hello there']);

    upstream.stream({ deltas: ['par', 'tial', 'answer'], breakAfter: 1 });
    const broken = await chat(app, { conversation_id: streamed.conversationId, messages: [{ role: 'user', content: 'again' }], stream: true });
    expect(broken.text).toContain('"error"');
    expect(await stored(app, session)).toEqual(['user: hi', 'assistant: Hello there']);
  });

  it('passes options through to the model, and the client system message joins the instructions', async () => {
    const app = await appOnUpstream();
    upstream.reply({ text: 'ok' });
    await chat(app, { messages: [{ role: 'developer', content: 'Answer in French.' }, { role: 'user', content: 'hello' }], temperature: 0.3, max_completion_tokens: 9, user: 'u-1' });
    expect(upstream.requests.at(-1)!.json).toMatchObject({ model: 'gpt-test', temperature: 0.3, max_tokens: 9, user: 'u-1' });
    expect(lastSent()).toEqual(['system: Answer in French.', 'user: hello']);
  });

  it('shows the model at most agents.defaults.historyLimit earlier messages, in chat, hook runs and heartbeats alike', async () => {
    const app = await appOnUpstream({ historyLimit: 2 });
    upstream.reply({ text: 'noted' });

    // chat: a conversation of four stored messages, continued
    const seeded = await chat(app, { messages: [{ role: 'user', content: 'u1' }, { role: 'assistant', content: 'a1' }, { role: 'user', content: 'u2' }] });
    await chat(app, { conversation_id: seeded.conversationId, messages: [{ role: 'user', content: 'u3' }] });
    expect(lastSent()).toEqual(['user: u2', 'assistant: noted', 'user: u3']);

    // hook runs: three turns of one session
    for (const message of ['r1', 'r2', 'r3']) {
      const res = await app.request('/hooks/agent', { method: 'POST', headers: hookHeaders(), body: JSON.stringify({ message, sessionKey: 'hook:limits', deliver: false, wakeMode: 'next-heartbeat' }) });
      expect(res.status).toBe(202);
      await app.gateway.runs.idle();
    }
    const sent = lastSent();
    expect(sent.slice(0, 2)).toEqual(['user: r2', 'assistant: noted']);
    expect(sent).toHaveLength(3);
    expect(await stored(app, 'hook:limits')).toHaveLength(6);

    // heartbeats: each with events (the runs' summaries, then a wake) leaves its prompt and answer in the main session;
    // the answer is an ack, so nothing goes out to a channel
    upstream.reply({ text: 'HEARTBEAT_OK' });
    for (const text of ['e1', 'e2']) {
      await app.request('/hooks/wake', { method: 'POST', headers: hookHeaders(), body: JSON.stringify({ text, mode: 'now' }) });
      await app.gateway.heartbeat.idle();
    }
    expect(await stored(app, 'main')).toHaveLength(4);
    const heartbeat = lastSent();
    expect(heartbeat).toHaveLength(3);
    expect(heartbeat[0]).toMatch(/^user: Heartbeat\. System events since the last heartbeat:\n(.|\n)*- e1/);
    expect(heartbeat[1]).toBe('assistant: HEARTBEAT_OK');
    expect(heartbeat[2]).toMatch(/- e2/);
  });

  it('sends the upstream a valid tool-call sequence when the history limit cuts an exchange or the client leaves calls unanswered', async () => {
    const app = await appOnUpstream({ historyLimit: 2 });
    const tools = [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: {} } } }];
    // a tool exchange: the call, its result, the answer (four stored messages)
    const calling = JSON.parse((await chat(app, { messages: [{ role: 'user', content: 'q1' }], tools })).text);
    const conversation_id = calling.conversation_id;
    const [call] = calling.choices[0].message.tool_calls;
    await chat(app, { conversation_id, messages: [{ role: 'tool', tool_call_id: call.id, content: 'r1' }], tools });
    // the newest two stored messages start with the result of a call that fell out of the window: it is left out
    upstream.reply({ text: 'plain' });
    await chat(app, { conversation_id, messages: [{ role: 'user', content: 'q2' }] });
    expect(lastSent()).toEqual(['assistant: The tools said: r1.', 'user: q2']);

    // calls the client never answered (it asked something new) are not sent as pending calls
    await chat(app, { conversation_id, messages: [{ role: 'user', content: 'q3' }], tools });
    await chat(app, { conversation_id, messages: [{ role: 'user', content: 'q4' }] });
    expect(upstream.requests.at(-1)!.json.messages.some((m: { tool_calls?: unknown }) => m.tool_calls)).toBe(false);
    expect(lastSent()).toEqual(['user: q3', 'user: q4']);
  });
});
