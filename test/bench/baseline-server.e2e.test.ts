import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChildServer, type ChildServer } from '../../bench/child-server.js';
import { createHmac } from 'node:crypto';
import { githubBaselineConfig, GITHUB_SECRET, SIGNED_BODY } from '../../bench/signed-hook.js';
import { tempDir } from '../helpers/start-herald.js';

// The benchmark's yardstick must do herald's per-request work, or the ratio means nothing:
// this pins its answers and its durable inserts to the webhook contract.
const TOKEN = 'baseline-token-0123456789abcdef';
let server: ChildServer;
let dbFile: string;

beforeAll(async () => {
  dbFile = path.join(tempDir('herald-baseline-'), 'baseline.db');
  server = await startChildServer({
    name: 'baseline',
    args: ['--import', 'tsx', path.resolve('bench/baseline-server.ts')],
    env: { BASELINE_DB: dbFile, BASELINE_TOKEN: TOKEN, BASELINE_MAX_BODY_BYTES: '1024', BASELINE_GITHUB: JSON.stringify(githubBaselineConfig()) },
  });
});
afterAll(() => server?.stop());

const post = (p: string, body: string, token = TOKEN) =>
  fetch(`${server.url}${p}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body });

describe('bench baseline server', () => {
  it('answers like herald: 200 wake, 202 agent, 401, 400, 413, 405', async () => {
    const wake = await post('/hooks/wake', JSON.stringify({ text: 'disk almost full' }));
    expect(wake.status).toBe(200);
    expect(await wake.json()).toEqual({ ok: true, mode: 'now', eventOutcome: 'queued' });
    const agent = await post('/hooks/agent', JSON.stringify({ message: 'summarise', deliver: false }));
    expect(agent.status).toBe(202);
    expect(await agent.json()).toMatchObject({ ok: true, runId: expect.any(String) });

    expect((await post('/hooks/wake', JSON.stringify({ text: 'x' }), 'wrong-token-0123456789abcdef')).status).toBe(401);
    expect((await post('/hooks/wake', '{not json')).status).toBe(400);
    expect((await post('/hooks/wake', JSON.stringify({ text: '  ' }))).status).toBe(400);
    expect((await post('/hooks/agent', JSON.stringify({ message: 'm', deliver: 'yes' }))).status).toBe(400);
    expect((await post('/hooks/wake', JSON.stringify({ text: 'a'.repeat(2000) }))).status).toBe(413);
    const get = await fetch(`${server.url}/hooks/wake`);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });

  it('stores what it accepted, skipping a repeated wake text', async () => {
    await post('/hooks/wake', JSON.stringify({ text: 'same news' }));
    await post('/hooks/wake', JSON.stringify({ text: 'same news' }));
    const res = await post('/hooks/agent', JSON.stringify({ message: 'look at this' }));
    const { runId } = (await res.json()) as { runId: string };
    const db = new Database(dbFile, { readonly: true });
    try {
      expect(db.prepare("SELECT COUNT(*) AS n FROM events WHERE text = 'same news'").get()).toEqual({ n: 1 });
      expect(db.prepare('SELECT status, message FROM runs WHERE id = ?').get(runId)).toEqual({ status: 'queued', message: 'look at this' });
    } finally {
      db.close();
    }
  });

  it('executes the runs of /hooks/agent-executed: status and reply, the turn, the session summary, the main-session event', async () => {
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => post('/hooks/agent-executed', JSON.stringify({ message: `executed ${i}`, name: 'Exec', sessionKey: `hook:exec-${i}` }))),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(30).fill(202));
    const db = new Database(dbFile, { readonly: true });
    try {
      const finished = () => db.prepare("SELECT COUNT(*) AS n FROM runs WHERE message LIKE 'executed %' AND status = 'succeeded'").get() as { n: number };
      for (let i = 0; i < 100 && finished().n < 30; i++) await new Promise((r) => setTimeout(r, 50));
      expect(finished().n).toBe(30);
      expect(db.prepare("SELECT reply FROM runs WHERE message = 'executed 7'").get()).toEqual({ reply: expect.stringContaining('Received: "executed 7"') });
      expect(db.prepare("SELECT role, content FROM session_messages WHERE session_key = 'hook:exec-7' ORDER BY id").all()).toEqual([
        { role: 'user', content: 'executed 7' },
        { role: 'assistant', content: expect.stringContaining('Received: "executed 7"') },
      ]);
      expect(db.prepare("SELECT messages FROM session_summaries WHERE key = 'hook:exec-7'").get()).toEqual({ messages: 2 });
      expect(db.prepare("SELECT COUNT(*) AS n FROM events WHERE session = 'main' AND text LIKE 'Hook Exec: Received%'").get()).toEqual({ n: 30 });
    } finally {
      db.close();
    }
  });

  it('commits concurrent writes together and answers each after the commit', async () => {
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => post('/hooks/wake', JSON.stringify({ text: `burst ${i}` }))));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    const db = new Database(dbFile, { readonly: true });
    try {
      expect(db.prepare("SELECT COUNT(*) AS n FROM events WHERE text LIKE 'burst %'").get()).toEqual({ n: 20 });
    } finally {
      db.close();
    }
  });

  it('keeps the main session at its cap of 20 pending events, the newest ones, as herald does', async () => {
    for (let i = 0; i < 25; i++) expect((await post('/hooks/wake', JSON.stringify({ text: `capped ${i}` }))).status).toBe(200);
    // the newest event repeated: skipped, nothing dropped for it
    expect(await (await post('/hooks/wake', JSON.stringify({ text: 'capped 24' }))).json()).toEqual({ ok: true, mode: 'now', eventOutcome: 'coalesced' });
    const db = new Database(dbFile, { readonly: true });
    try {
      const pending = db.prepare("SELECT text FROM events WHERE session = 'main' AND status = 'pending' ORDER BY id").all() as { text: string }[];
      expect(pending.map((e) => e.text)).toEqual(Array.from({ length: 20 }, (_, i) => `capped ${i + 5}`));
    } finally {
      db.close();
    }
  });

  it('does a mapped hook\'s work: schema (400 naming the path) and templates', async () => {
    const payload = { action: 'opened', issue: { number: 7, title: 'Broken', html_url: 'https://example.com/i/7' }, repository: { full_name: 'acme/x' } };
    expect((await post('/hooks/mapped-wake', JSON.stringify(payload))).status).toBe(200);
    const bad = await post('/hooks/mapped-wake', JSON.stringify({ ...payload, issue: { ...payload.issue, html_url: 'not a uri' } }));
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toContain('/issue/html_url');
    const agent = await post('/hooks/mapped-agent', JSON.stringify(payload));
    const { runId } = (await agent.json()) as { runId: string };
    const db = new Database(dbFile, { readonly: true });
    try {
      expect(db.prepare("SELECT COUNT(*) AS n FROM events WHERE text = 'Issue #7 opened in acme/x: Broken'").get()).toEqual({ n: 1 });
      expect(db.prepare('SELECT name, message FROM runs WHERE id = ?').get(runId)).toEqual({
        name: 'GitHub acme/x',
        message: 'Triage issue #7 (OPENED) of acme/x: Broken https://example.com/i/7',
      });
    } finally {
      db.close();
    }
  });

  // GitHub signs the body with the webhook's secret: https://docs.github.com/en/webhooks/using-webhooks/validating-webhook-deliveries
  it("does a signed preset webhook's work: GitHub's signature, the preset's templates, one run per delivery id", async () => {
    const body = SIGNED_BODY.replaceAll('{n}', '7');
    const signed = (text: string, delivery: string, event = 'issues', secret = GITHUB_SECRET) =>
      fetch(`${server.url}/hooks/github`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json', 'x-github-event': event, 'x-github-delivery': delivery,
          'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(text).digest('hex')}`,
        },
        body: text,
      });
    const first = await signed(body, 'delivery-1');
    expect(first.status).toBe(202);
    const { runId } = (await first.json()) as { runId: string };
    // a redelivery: the same run, nothing inserted again
    expect(await (await signed(body, 'delivery-1')).json()).toEqual({ ok: true, runId });
    expect((await signed(body, 'delivery-2', 'issues', 'another-secret')).status).toBe(401);
    expect((await signed(body, 'delivery-3', 'ping')).status).toBe(204);
    const db = new Database(dbFile, { readonly: true });
    try {
      expect(db.prepare('SELECT name, session_key, message FROM runs WHERE id = ?').get(runId)).toEqual({
        name: 'GitHub Codertocat/Hello-World#17',
        session_key: 'hook:github:Codertocat/Hello-World#17',
        message: expect.stringMatching(/^Issue #17 opened in Codertocat\/Hello-World by Codertocat: 7: Spelling error in the README file\n/),
      });
      expect(db.prepare("SELECT COUNT(*) AS n FROM runs WHERE session_key = 'hook:github:Codertocat/Hello-World#17'").get()).toEqual({ n: 1 });
      expect(db.prepare("SELECT status, run_id, response_status FROM idempotency_keys WHERE scope = 'github' AND key = 'delivery-1'").get()).toEqual({
        status: 'done', run_id: runId, response_status: 202,
      });
      for (let i = 0; i < 50 && !db.prepare('SELECT 1 FROM receipts WHERE run_id = ?').get(runId); i++) await new Promise((r) => setTimeout(r, 20));
      expect(db.prepare('SELECT auth_method, idempotency_key, mapping_id FROM receipts WHERE run_id = ? LIMIT 1').get(runId)).toEqual({
        auth_method: 'signature', idempotency_key: 'delivery-1', mapping_id: 'github-issue',
      });
    } finally {
      db.close();
    }
  });
});
