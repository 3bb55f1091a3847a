import { afterEach, expect, it } from 'vitest';
import { callInRounds, startToolCallingModel, type ToolCallingModel } from '../helpers/fake-tool-calling-model.js';
import { eventually, GATEWAY_TOKEN, hookHeaders } from '../helpers/start-herald.js';
import { testApp } from '../http/app-fixture.js';

/** A heartbeat turn calls its agent's tools as any turn does; its calls are on the record under the heartbeat. */
let model: ToolCallingModel | undefined;
afterEach(async () => {
  await model?.close();
});

it("a heartbeat over the main session's events calls the default agent's tools", async () => {
  model = await startToolCallingModel(callInRounds([[{ name: 'herald__search_knowledge', arguments: { query: 'runbook for db latency' } }]]));
  const h = await testApp({
    models: { providers: { fake: { api: 'openai', baseUrl: model.url, apiKey: 'sk-fake' } } },
    agents: { defaults: { model: 'fake/tool-model' }, list: [{ id: 'main', tools: { servers: ['herald'], allow: ['herald__search_knowledge'] } }] },
  });
  const res = await h.request('/hooks/wake', { method: 'POST', headers: hookHeaders(), body: JSON.stringify({ text: 'Pager: db latency', mode: 'now' }) });
  expect(res.status).toBe(200);
  const answer = await eventually(async () => (await h.gateway.store.sessions.messages('main')).find((m) => m.role === 'assistant' && m.content.startsWith('Done')));
  expect(answer.content).toBe('Done: nothing found');
  // the exchange is kept in the main session: the next heartbeat's model sees what was looked up
  const tool = (await h.gateway.store.sessions.messages('main')).find((m) => m.role === 'tool');
  expect(tool).toMatchObject({ content: 'nothing found' });
  expect(model.requests[0].tools.map((t: any) => t.function.name)).toEqual(['herald__search_knowledge']);
  // the admin API shows the call where the model asked for it, and whose result the tool message is
  const listed = await h.request('/admin/sessions/main/messages', { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } });
  const { data } = (await listed.json()) as { data: Record<string, unknown>[] };
  const asked = data.find((m) => m.role === 'assistant' && m.toolCalls)!;
  expect(asked.toolCalls).toEqual([{ id: expect.any(String), name: 'herald__search_knowledge', arguments: { query: 'runbook for db latency' } }]);
  expect(data.find((m) => m.role === 'tool')).toMatchObject({ content: 'nothing found', toolCallId: (asked.toolCalls as { id: string }[])[0]!.id, tool: 'herald__search_knowledge' });
});
