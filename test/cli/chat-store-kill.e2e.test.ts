import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { API_KEY, baseConfig, GATEWAY_TOKEN, tempDir } from '../helpers/start-herald.js';
import { killLeftOver, spawnHerald, type SpawnedHerald } from './spawn-herald.js';

let spawned: SpawnedHerald | undefined;
afterEach(async () => {
  await killLeftOver(spawned);
  spawned = undefined;
});

async function serve(file: string): Promise<string> {
  spawned = spawnHerald(['serve', '--config', file]);
  return (await spawned.waitFor(/herald listening on (http:\/\/\S+)/))[1]!;
}

// a real process and a real SIGKILL right after the answers: what was answered was recorded
describe('chat completions and a response with store: false, then kill -9', { timeout: 120_000 }, () => {
  it('has its usage in the store after a restart, and no conversation', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'herald.json');
    fs.writeFileSync(file, JSON.stringify(baseConfig({ storage: { sqlite: path.join(dir, 'herald.db') }, agents: { list: [{ id: 'support' }] } })));
    let url = await serve(file);
    const answered: number[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'support', messages: [{ role: 'user', content: `question ${i}` }], store: false }),
      });
      expect(res.status).toBe(200);
      answered.push(((await res.json()) as { usage: { total_tokens: number } }).usage.total_tokens);
    }
    // the Responses API's store: false keeps the usage alone, too
    const response = await fetch(`${url}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'support', input: 'one more question', store: false }),
    });
    expect(response.status).toBe(200);
    answered.push(((await response.json()) as { usage: { total_tokens: number } }).usage.total_tokens);
    spawned!.child.kill('SIGKILL');
    await spawned!.exited;

    url = await serve(file);
    const get = async (p: string): Promise<any> => (await fetch(`${url}${p}`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } })).json();
    const usage = (await get('/admin/usage?by=key')).data.find((r: { group: string }) => r.group === 'test');
    expect(usage).toMatchObject({ requests: 4, totalTokens: answered.reduce((a, b) => a + b, 0) });
    expect((await get('/admin/sessions?prefix=chat:')).data).toEqual([]);
  });
});
