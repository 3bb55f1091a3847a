import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CallsInFlight, interruptLeftCalls } from '../../../src/runtime/mcp-endpoint/calls-in-flight.js';
import { StoredEvents } from '../../../src/runtime/mcp-endpoint/stored-events.js';
import { StoredSessions } from '../../../src/runtime/mcp-endpoint/stored-sessions.js';
import type { Store, ToolCallRecord } from '../../../src/store/port.js';
import { openSqliteStore } from '../../../src/store/sqlite/sqlite-store.js';
import { tempDir } from '../../helpers/start-herald.js';

/**
 * What /mcp keeps in the store for replicas, on a real store: the leases of the calls in flight,
 * the sessions, their streams' events. Two processes here are two instances on one store.
 */
const opened: Store[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});

async function store(): Promise<Store> {
  const s = await openSqliteStore(path.join(tempDir(), 'herald.db'));
  opened.push(s);
  return s;
}

const running = (id: string): ToolCallRecord => ({
  id,
  callId: '1',
  ownerKind: 'mcp',
  ownerId: 'session',
  agentId: '',
  keyName: 'ops',
  turn: 0,
  server: 'tickets',
  tool: 'close_ticket',
  arguments: '{}',
  readOnly: false,
  status: 'running',
  createdAt: 1,
  startedAt: 1,
  approvalRequired: false,
});

describe('calls in flight', () => {
  it("leaves a live process's call alone, and records a dead one's interrupted once when two sweep at once", async () => {
    const s = await store();
    const live = new CallsInFlight(s.toolCalls, () => 60_000);
    const dead = new CallsInFlight(s.toolCalls, () => 1000);
    await s.toolCalls.insert([{ ...running('tc_live'), lease: live.lease() }, { ...running('tc_dead'), lease: dead.lease() }, running('tc_no_lease')]);
    live.started();
    dead.started();
    const later = Date.now() + 5_000;
    const swept = await Promise.all([interruptLeftCalls(s, { by: 'b', now: later }), interruptLeftCalls(s, { by: 'c', now: later })]);
    expect(swept.reduce((a, b) => a + b)).toBe(1);
    expect(await s.toolCalls.get('tc_dead')).toMatchObject({ status: 'interrupted', finishedAt: later, error: expect.stringContaining('interrupted') });
    expect((await s.toolCalls.get('tc_live'))?.status).toBe('running');
    // a call without a lease is a run's: its run's lease decides, not this sweep
    expect((await s.toolCalls.get('tc_no_lease'))?.status).toBe('running');
    // a process serving its database alone takes every leased call left, whatever its lease
    expect(await interruptLeftCalls(s, { alone: true })).toBe(1);
    expect((await s.toolCalls.get('tc_live'))?.status).toBe('interrupted');
    live.stop();
    dead.stop();
  });

  it("renews a live process's leases while its calls run, so a sweep after the first lease leaves them", async () => {
    const s = await store();
    const live = new CallsInFlight(s.toolCalls, () => 600);
    await s.toolCalls.insert([{ ...running('tc_long'), lease: live.lease() }]);
    live.started();
    await new Promise((r) => setTimeout(r, 1300));
    expect(await interruptLeftCalls(s)).toBe(0);
    live.ended();
    await new Promise((r) => setTimeout(r, 900));
    expect(await interruptLeftCalls(s)).toBe(1);
    live.stop();
  });

  it('records interrupted a call a herald before leased records marked in the state', async () => {
    const s = await store();
    await s.toolCalls.insert([running('tc_old')]);
    await s.state.set('mcp-call-in-flight:tc_old', { owner: 'gone', until: 1 });
    expect(await interruptLeftCalls(s)).toBe(1);
    expect((await s.toolCalls.get('tc_old'))?.status).toBe('interrupted');
    expect(await s.state.list('mcp-call-in-flight:')).toEqual([]);
  });
});

describe('stored sessions and events', () => {
  it("replays a session's own events after the one named, skipping the priming ones; a closed session's are gone", async () => {
    const s = await store();
    const events = new StoredEvents(s.state);
    const one = events.of(() => 'session-1');
    const other = events.of(() => 'session-2');
    const priming = await one.storeEvent('stream-a', {});
    await one.storeEvent('stream-a', { jsonrpc: '2.0', method: 'notifications/progress', params: { progress: 1 } });
    await one.storeEvent('stream-b', { jsonrpc: '2.0', method: 'elsewhere' });
    await one.storeEvent('stream-a', { jsonrpc: '2.0', id: 7, result: {} });
    await other.storeEvent('stream-a', { jsonrpc: '2.0', id: 8, result: {} });
    // the priming event is an id only: no write of its own
    expect(await s.state.list('mcp-event:session-1:')).toHaveLength(3);
    const sent: unknown[] = [];
    expect(await one.replayEventsAfter(priming, { send: async (_id, message) => void sent.push(message) })).toBe('stream-a');
    expect(sent).toEqual([expect.objectContaining({ method: 'notifications/progress' }), expect.objectContaining({ id: 7 })]);
    expect(await one.getStreamIdForEventId('not an id')).toBeUndefined();
    await events.forget('session-1');
    const after: unknown[] = [];
    await one.replayEventsAfter(priming, { send: async (_id, message) => void after.push(message) });
    expect(after).toEqual([]);
    expect(await s.state.list('mcp-event:session-2:')).toHaveLength(1);
  });

  it('keeps a session for any replica until it is closed or idle past sessionIdleMinutes', async () => {
    const s = await store();
    const sessions = new StoredSessions(s.state, () => 60_000);
    const initialize = { protocolVersion: '2025-11-25', capabilities: { elicitation: {} }, clientInfo: { name: 'c', version: '1' } };
    await sessions.opened('s1', { key: 'ops', initialize, createdAt: Date.now() });
    expect(await new StoredSessions(s.state, () => 60_000).get('s1')).toMatchObject({ key: 'ops', initialize });
    expect(await sessions.get('s1', Date.now() + 61_000)).toBeUndefined();
    await sessions.closed('s1');
    expect(await sessions.get('s1')).toBeUndefined();
  });
});
