import { expect, it } from 'vitest';
import { keepJson, requestJson } from '../../src/models/request-json.js';

it('writes a body with kept tools as the same JSON value JSON.stringify writes, the tools last', () => {
  const kept = keepJson({ type: 'function', function: { name: 'echo', description: 'Says "hi"\n', parameters: { type: 'object', properties: { message: { type: 'string' } } } } });
  const client = { type: 'function', function: { name: 'local', parameters: {} } };
  const body = { model: 'm', tools: [client, kept], messages: [{ role: 'user', content: 'ü' }], stream: false };
  const json = requestJson(body);
  expect(JSON.parse(json)).toEqual(body);
  expect(json.endsWith(`"tools":[${JSON.stringify(client)},${JSON.stringify(kept)}]}`)).toBe(true);
  expect(JSON.parse(requestJson({ tools: [kept] }))).toEqual({ tools: [kept] });
  // nothing kept: JSON.stringify's own
  expect(requestJson({ model: 'm', tools: [client] })).toBe(JSON.stringify({ model: 'm', tools: [client] }));
});
