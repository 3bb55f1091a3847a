import fs from 'node:fs';
import { expect, it } from 'vitest';

/** every field `/hooks/agent` reads (mappings/hook-action.ts) has its row in docs/webhooks.md's field table, not only a mention in prose */
it("docs/webhooks.md's /hooks/agent table has a row for every field the endpoint reads", () => {
  const doc = fs.readFileSync('docs/webhooks.md', 'utf8');
  const agent = doc.slice(doc.indexOf('Accepts an isolated agent run'));
  const table = agent.slice(agent.indexOf('| Field | Type | Default | Rule |'));
  const rows = table.slice(0, table.indexOf('\n\n')).split('\n');
  const fields = rows.map((r) => /^\| `([A-Za-z]+)` \|/.exec(r)?.[1]).filter(Boolean);
  const read = ['message', 'name', 'agentId', 'sessionKey', 'sessionMode', 'accountId', 'wakeMode', 'deliver', 'channel', 'to', 'threadId', 'model', 'thinking', 'timeoutSeconds', 'waitForCompletion'];
  expect(read.filter((f) => !fields.includes(f))).toEqual([]);
});
