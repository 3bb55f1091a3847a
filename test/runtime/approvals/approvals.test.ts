import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { HeraldError } from '../../../src/errors.js';
import { announceApprovals } from '../../../src/runtime/approvals/announce-approvals.js';
import { approvalNoticeId, decisionPaths } from '../../../src/runtime/approvals/approval-notice.js';
import { ApprovalSweep } from '../../../src/runtime/approvals/approval-sweep.js';
import { approvalTargetFaults } from '../../../src/runtime/approvals/approval-targets.js';
import { decideApproval } from '../../../src/runtime/approvals/decide-approval.js';
import { toolsSchema } from '../../../src/config/sections/tools-schema.js';
import type { HeraldConfig } from '../../../src/config/schema.js';
import type { RunRecord, ToolApproval, ToolCallRecord } from '../../../src/store/port.js';

/**
 * The approval use cases against a store port held in memory (the store's own contract suite
 * covers the adapters' `decide`); the admin API test runs them on the real store.
 */
const HOUR = 3_600_000;
const T0 = Date.parse('2026-11-28T10:00:00Z');
const TOKEN = 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8';

const call = (over: Partial<ToolCallRecord> = {}): ToolCallRecord => ({
  id: 'tc_1',
  callId: 'call_abc',
  ownerKind: 'run',
  ownerId: 'run-1',
  agentId: 'main',
  mappingId: 'github',
  turn: 0,
  server: 'github',
  tool: 'create_issue',
  arguments: JSON.stringify({ repo: 'acme/api', title: 'Crash on start', token: TOKEN }),
  readOnly: false,
  status: 'waiting_approval',
  createdAt: T0,
  approvalRequired: true,
  approvalExpiresAt: T0 + HOUR,
  approval: null,
  ...over,
});

const run = { id: 'run-1', name: 'GitHub', agentId: 'main', status: 'waiting_approval', action: { source: { mappingId: 'github' } } } as unknown as RunRecord;

/** the store's tool calls in memory: `decide` as the port defines it (one decision wins) */
function memoryStore(calls: ToolCallRecord[]) {
  const byId = new Map(calls.map((c) => [c.id, { ...c }]));
  const deliveries = new Map<string, { id: string; channel: string; to?: string; text: string }>();
  const waiting = (c: ToolCallRecord) => c.status === 'waiting_approval' && c.approvalRequired && !c.approval;
  const store = {
    deliveries,
    toolCalls: {
      get: async (id: string) => byId.get(id),
      async decide(id: string, approval: ToolApproval) {
        const c = byId.get(id);
        if (!c || !waiting(c)) return undefined;
        c.approval = approval;
        if (approval.decision !== 'approved') c.status = 'denied';
        return { ...c };
      },
      pendingApprovals: async (limit: number) => [...byId.values()].filter(waiting).slice(0, limit),
      expiredApprovals: async (now: number, limit: number) => [...byId.values()].filter((c) => waiting(c) && (c.approvalExpiresAt ?? Infinity) <= now).slice(0, limit),
    },
    runs: { get: async (id: string) => (id === run.id ? run : undefined) },
    published: [] as string[],
    signals: {
      publish(topic: string) {
        store.published.push(topic);
      },
      subscribe: () => () => {},
    },
    outbox: {
      async deliverAlert(notice: { id: string; channel: string; to?: string; text: string }) {
        if (!deliveries.has(notice.id)) deliveries.set(notice.id, notice);
      },
    },
  };
  return store;
}

const targets = [{ channel: 'telegram', to: '-100123' }, { channel: 'webhook' }];
const config = (over: Record<string, unknown> = {}) =>
  ({ tools: toolsSchema.parse({ approvals: { targets }, ...over }), gateway: { host: '127.0.0.1', port: 8787 } }) as unknown as HeraldConfig;
const logger = pino({ level: 'silent' });

async function refusal(promise: Promise<unknown>): Promise<HeraldError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(HeraldError);
  return error as HeraldError;
}

describe('decideApproval', () => {
  it('records who approved and why; a second decision is a 409 naming the first', async () => {
    const store = memoryStore([call()]);
    const decided = await decideApproval({ store: store as never, now: () => T0 + 5 }, 'tc_1', { decision: 'approve', by: 'console:1a2b3c4d', reason: 'fine' });
    expect(decided.approval).toEqual({ decision: 'approved', by: 'console:1a2b3c4d', at: T0 + 5, reason: 'fine' });
    // every process hears that a run may be claimable again
    expect(store.published).toEqual(['runs.resumable']);
    const again = await refusal(decideApproval({ store: store as never }, 'tc_1', { decision: 'deny', by: 'gateway-token', reason: 'no' }));
    expect(again).toMatchObject({ code: 'HERALD_APPROVAL_NOT_PENDING', status: 409 });
    expect(again.message).toBe(`tool call tc_1 was already approved by console:1a2b3c4d at ${new Date(T0 + 5).toISOString()}`);
  });

  it('records a denial with its reason', async () => {
    const store = memoryStore([call()]);
    const decided = await decideApproval({ store: store as never }, 'tc_1', { decision: 'deny', by: 'gateway-token', reason: 'not from a webhook' });
    expect(decided).toMatchObject({ status: 'denied', approval: { decision: 'denied', by: 'gateway-token', reason: 'not from a webhook' } });
  });

  it("answers 409 for a call whose run ended while it waited (cancelled): nothing waits for the decision", async () => {
    const store = { ...memoryStore([call()]), runs: { get: async () => ({ ...run, status: 'cancelled' }) } };
    const refused = await refusal(decideApproval({ store: store as never }, 'tc_1', { decision: 'approve', by: 'x' }));
    expect(refused).toMatchObject({ status: 409, message: 'tool call tc_1 belongs to run run-1, which is cancelled: nothing waits for the decision' });
    expect((await store.toolCalls.get('tc_1'))!.approval).toBeNull();
  });

  it('answers 404 for an unknown call and 409 for one that never needed approval', async () => {
    const store = memoryStore([call({ id: 'tc_ro', approvalRequired: false, status: 'succeeded', approvalExpiresAt: null })]);
    expect(await refusal(decideApproval({ store: store as never }, 'tc_nope', { decision: 'approve', by: 'x' }))).toMatchObject({ code: 'HERALD_NOT_FOUND', status: 404 });
    const never = await refusal(decideApproval({ store: store as never }, 'tc_ro', { decision: 'approve', by: 'x' }));
    expect(never).toMatchObject({ status: 409, message: 'tool call tc_ro needed no approval (it is succeeded)' });
  });
});

describe('announceApprovals', () => {
  it('queues one notice per pending call and target: the tool, the run, masked arguments, the deadline and how to decide', async () => {
    const store = memoryStore([]);
    const decided = call({ id: 'tc_2', approval: { decision: 'approved', by: 'x', at: T0 } });
    const queued = await announceApprovals({ config: config(), outbox: store.outbox }, run, [call(), decided]);
    expect(queued).toBe(2);
    const notices = [...store.deliveries.values()];
    expect(notices.map((n) => [n.channel, n.to])).toEqual([['telegram', '-100123'], ['webhook', undefined]]);
    expect(notices[0]!.id).toBe(approvalNoticeId('tc_1', targets[0]!));
    const text = notices[0]!.text;
    expect(text).toContain('herald approval needed: create_issue on github');
    expect(text).toContain('Agent main · mapping github · run run-1 (GitHub)');
    expect(text).toContain('Arguments: {"repo":"acme/api","title":"Crash on start","token":"••••"}');
    expect(text).toContain(`Refused unless decided by ${new Date(T0 + HOUR).toISOString()}.`);
    expect(text).toContain('Approve: POST /admin/approvals/tc_1/approve');
    expect(text).toContain('Deny: POST /admin/approvals/tc_1/deny {"reason": "…"}');
    expect(text).toContain('Console: http://127.0.0.1:8787/console#/approvals/tc_1');
    expect(text).not.toContain(TOKEN);
  });

  it('queues a notice once however often it is announced, and never throws when the outbox does', async () => {
    const store = memoryStore([]);
    await announceApprovals({ config: config(), outbox: store.outbox }, run, [call()]);
    await announceApprovals({ config: config(), outbox: store.outbox }, run, [call()]);
    expect(store.deliveries.size).toBe(2);
    const failing = { deliverAlert: async () => Promise.reject(new Error('store away')) };
    await expect(announceApprovals({ config: config(), outbox: failing, logger }, run, [call()])).resolves.toBe(0);
  });

  it('cuts long arguments in a notice', async () => {
    const store = memoryStore([]);
    await announceApprovals({ config: config(), outbox: store.outbox }, run, [call({ arguments: JSON.stringify({ body: 'word '.repeat(1000) }) })]);
    expect([...store.deliveries.values()][0]!.text).toContain('… (cut: the console shows all)');
  });

  it('gives the console URL only when herald listens on a known address', () => {
    expect(decisionPaths('tc_1', { host: '0.0.0.0', port: 8787 } as HeraldConfig['gateway']).console).toBe('/console#/approvals/tc_1');
    expect(decisionPaths('tc_1', { host: '::1', port: 80 } as HeraldConfig['gateway']).console).toBe('http://[::1]:80/console#/approvals/tc_1');
  });
});

describe('ApprovalSweep', () => {
  it('refuses the calls whose approval expired (by timeout) and leaves the others waiting', async () => {
    const store = memoryStore([call({ id: 'tc_old', approvalExpiresAt: T0 + HOUR }), call({ id: 'tc_new', approvalExpiresAt: T0 + 3 * HOUR })]);
    const sweep = new ApprovalSweep({ store: { ...store, deliveries: { get: async (id: string) => store.deliveries.get(id) } } as never, announce: { config: config({ approvals: { targets: [] } }), outbox: store.outbox }, logger });
    expect(await sweep.sweep(T0 + 2 * HOUR)).toEqual({ expired: 1, announced: 0 });
    expect(await store.toolCalls.get('tc_old')).toMatchObject({ status: 'denied', approval: { decision: 'expired', by: 'timeout', at: T0 + 2 * HOUR } });
    expect(await store.toolCalls.get('tc_new')).toMatchObject({ status: 'waiting_approval', approval: null });
    expect(await sweep.sweep(T0 + 2 * HOUR)).toEqual({ expired: 0, announced: 0 });
  });

  it('announces a pending call whose notice is missing (its process died before queueing it), once', async () => {
    const store = memoryStore([call()]);
    const sweep = new ApprovalSweep({ store: { ...store, deliveries: { get: async (id: string) => store.deliveries.get(id) } } as never, announce: { config: config(), outbox: store.outbox }, logger });
    expect(await sweep.sweep(T0)).toEqual({ expired: 0, announced: 2 });
    expect([...store.deliveries.values()][0]!.text).toContain('run run-1 (GitHub)');
    expect(await sweep.sweep(T0)).toEqual({ expired: 0, announced: 0 });
  });
});

describe('approvalTargetFaults', () => {
  it('checks tools.approvals.targets as alerts.targets are checked, naming each key', () => {
    const faults = approvalTargetFaults(toolsSchema.parse({ approvals: { targets: [{ channel: 'telegram' }, { channel: 'nope' }, { channel: 'slack', to: 'x' }] } }), {
      configured: (channel) => (channel === 'telegram' ? { requiresRecipient: true } : undefined),
      resolveChannel: (name) => (name === 'nope' ? undefined : name),
      recipientFault: () => undefined,
    });
    expect(faults).toEqual([
      'tools.approvals.targets[0].to: telegram needs a recipient',
      'tools.approvals.targets[1].channel: no channel plugin is named "nope"',
      'tools.approvals.targets[2].channel: slack is not configured (add channels.slack)',
    ]);
  });
});
