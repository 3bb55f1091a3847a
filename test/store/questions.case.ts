import { describe, expect, it } from 'vitest';
import type { ToolQuestionRecord } from '../../src/store/port.js';
import type { OpenStore } from './open-store-under-test.js';

const question = (id: string, createdAt: number, extra: Partial<ToolQuestionRecord> = {}): ToolQuestionRecord => ({
  id,
  toolCallId: `tc_${id}`,
  ownerKind: 'run',
  ownerId: 'run_1',
  agentId: 'main',
  server: 'crm',
  mode: 'form',
  message: 'Which account?',
  requestedSchema: { type: 'object', properties: { account: { type: 'string', default: 'main' } }, required: ['account'] },
  url: null,
  status: 'pending',
  content: null,
  answeredBy: null,
  createdAt,
  expiresAt: createdAt + 60_000,
  answeredAt: null,
  ...extra,
});

/** questions from MCP servers to a person (elicitation): asked, listed while pending, settled once */
export function questionsCases(open: OpenStore) {
  describe('tool questions', () => {
    it('stores a question, lists the pending ones oldest first, and settles each once', async () => {
      const store = await open();
      await store.questions.create(question('q_2', 2000));
      await store.questions.create(question('q_1', 1000));
      await store.questions.create(question('q_3', 3000, { mode: 'url', requestedSchema: null, url: 'https://example.com/connect' }));
      expect((await store.questions.pending(10)).map((q) => q.id)).toEqual(['q_1', 'q_2', 'q_3']);
      expect(await store.questions.get('q_3')).toEqual(question('q_3', 3000, { mode: 'url', requestedSchema: null, url: 'https://example.com/connect' }));

      const settled = await store.questions.settle('q_1', { status: 'accepted', content: { account: 'main', count: 2, ok: true, tags: ['a'] }, by: 'admin', at: 5000 });
      expect(settled).toEqual({ ...question('q_1', 1000), status: 'accepted', content: { account: 'main', count: 2, ok: true, tags: ['a'] }, answeredBy: 'admin', answeredAt: 5000 });
      // a second answer changes nothing
      expect(await store.questions.settle('q_1', { status: 'declined', by: 'other', at: 6000 })).toBeUndefined();
      expect((await store.questions.get('q_1'))!.status).toBe('accepted');
      expect(await store.questions.settle('q_2', { status: 'cancelled', by: 'timeout', at: 7000 })).toMatchObject({ status: 'cancelled', content: null, answeredBy: 'timeout' });
      expect((await store.questions.pending(10)).map((q) => q.id)).toEqual(['q_3']);
      expect(await store.questions.get('q_nope')).toBeUndefined();
    });

    it('of two processes answering at once, one settles the question', async () => {
      const a = await open();
      const b = await open(a);
      await a.questions.create(question('q_race', 1000));
      const results = await Promise.all([
        a.questions.settle('q_race', { status: 'accepted', content: { account: 'x' }, by: 'a', at: 2000 }),
        b.questions.settle('q_race', { status: 'declined', by: 'b', at: 2000 }),
      ]);
      expect(results.filter((r) => r !== undefined)).toHaveLength(1);
    });
  });
}
