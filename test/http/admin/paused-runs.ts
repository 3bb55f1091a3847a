import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { Gateway } from '../../../src/gateway/gateway.js';
import type { RunRecord, ToolCallRecord } from '../../../src/store/port.js';
import { queuedRun } from '../../store/run-record.js';

/** Runs paused for approval, seeded through the store port as a turn leaves them (the approvals' admin API and console tests). */
const HOUR = 3_600_000;
const OWNER = 'test-turn';
// shaped as GitHub documents a personal access token, made up here
export const GITHUB_TOKEN = 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8';

export function toolCall(runId: string, over: Partial<ToolCallRecord> = {}): ToolCallRecord {
  const now = Date.now();
  return {
    id: `tc_${randomUUID()}`,
    callId: `call_${randomUUID().slice(0, 8)}`,
    ownerKind: 'run',
    ownerId: runId,
    agentId: 'main',
    mappingId: 'github',
    turn: 0,
    server: 'github',
    tool: 'create_issue',
    arguments: JSON.stringify({ repo: 'acme/api', title: 'Crash on start', token: GITHUB_TOKEN }),
    readOnly: false,
    status: 'waiting_approval',
    createdAt: now,
    approvalRequired: true,
    approvalExpiresAt: now + HOUR,
    approval: null,
    ...over,
  };
}

/** what started the run and what its model wrote before its calls (the Approvals page shows both) */
export interface PausedRunStory {
  name?: string;
  message?: string;
  said?: string;
}

/** a run whose turn asked for `calls` and paused for approval, as the turn leaves it in the store */
export async function pausedRun(gateway: Pick<Gateway, 'store'>, calls: (runId: string) => ToolCallRecord[], story: PausedRunStory = {}): Promise<{ run: RunRecord; calls: ToolCallRecord[] }> {
  const { store } = gateway;
  const id = randomUUID();
  const now = Date.now();
  const queued = queuedRun(id, now, { source: { mappingId: 'github', path: 'github' }, ...(story.message && { message: story.message }) });
  const run = { ...queued, name: story.name ?? 'GitHub', message: story.message ?? queued.message };
  await store.runs.insert(run, { owner: OWNER, now, until: now + HOUR });
  const made = calls(id);
  // the assistant message that asked for the calls, as the turn's checkpoint keeps it
  const asked = { role: 'assistant', content: story.said ?? '', tool_calls: made.map((c) => ({ id: c.callId, type: 'function', function: { name: `${c.server}__${c.tool}`, arguments: c.arguments } })) };
  expect(await store.runs.checkpoint(id, OWNER, { messages: [{ role: 'user', content: run.message }, asked], round: 0, callsMade: made.length }, made)).toBe(true);
  expect(await store.runs.pauseForApproval(id, OWNER)).toBe(true);
  return { run: (await store.runs.get(id))!, calls: made };
}

