import { executeCall, type RoundContext } from '../../agents/tool-use/tool-round.js';
import { callsLedger } from '../../agents/tool-use/tool-ledger.js';
import type { ToolCallRecord, ToolCallStatus, ToolCallsRepo } from '../../store/port.js';
import { uuidV7 } from '../../time/uuid-v7.js';
import { parseArguments } from '../../tools/tool-arguments.js';
import type { ToolResult, ToolSpec } from '../../tools/tool-spec.js';
import type { TurnTools } from '../../tools/turn-tools.js';
import type { CallsInFlight } from './calls-in-flight.js';

/** the owner kind of a call an MCP client made through /mcp: its owner id is the MCP session */
export const MCP_OWNER = 'mcp' as const;

/** how a person's decision is asked for while the client waits */
export interface ApprovalAsk {
  /**
   * The client's user, through elicitation (the client declared it): true when they accepted.
   * Undefined when the client cannot be asked; the call then waits for a person on the console.
   */
  elicit?: (question: string) => Promise<boolean>;
  /** told while the call waits for a person on herald's Approvals page (progress notifications) */
  waiting?: (waitedMs: number) => void;
  /** how often the record is read again while a person is waited for */
  pollMs?: number;
}

export interface GovernedCallDeps {
  toolCalls: ToolCallsRepo;
  /** tools.approvalTimeout, in ms: a call unanswered this long is refused (the approval sweep expires it) */
  approvalTimeoutMs: number;
  onCallFinished?: RoundContext['onCallFinished'];
  /** marks the calls executing in this process, so a successor records them interrupted */
  inFlight?: CallsInFlight;
}

export interface GovernedCall {
  tools: TurnTools;
  spec: ToolSpec;
  args: Record<string, unknown>;
  /** the API key's name (the call's source on the record) */
  keyName: string;
  /** the MCP session's id: the owner of the call on the record */
  sessionId: string;
  /** the client's JSON-RPC request id (the record's call id) */
  requestId: string;
  signal: AbortSignal;
  approval: ApprovalAsk;
}

/** a governed call's answer to the client: the result's text, or why not, and its record's id */
export interface GovernedResult extends ToolResult {
  callRecordId: string;
  status: ToolCallStatus;
}

/**
 * A tool an API key is granted, called by an MCP client through /mcp: the same argument check,
 * verdict, record, time limit, result cap, trace span and metrics as a call an agent makes
 * (executeCall, tool-round.ts). Stored before it executes, so a call in flight when the process
 * dies is known as such; a call needing a person asks the client's user (elicitation) or waits on
 * the Approvals page up to tools.approvalTimeout.
 */
export async function governedCall(deps: GovernedCallDeps, call: GovernedCall): Promise<GovernedResult> {
  const { spec, tools } = call;
  const now = Date.now();
  const calls = callsLedger(deps.toolCalls, MCP_OWNER, call.sessionId);
  // the status the call's end was recorded with: no read of the record after it (undefined: a sweep recorded it first)
  let ended: ToolCallStatus | undefined;
  const ledger = {
    ...calls,
    finish: async (id: string, end: Parameters<ToolCallsRepo['finish']>[1]) => {
      if (await deps.toolCalls.finish(id, end)) ended = end.status;
    },
  };
  const ctx: RoundContext = { tools, ledger, attribution: { agentId: '', keyName: call.keyName }, signal: call.signal, approvalTimeoutMs: deps.approvalTimeoutMs, onCallFinished: deps.onCallFinished };
  const record = newRecord(call, now);
  const refuse = async (reason: string): Promise<GovernedResult> => {
    await deps.toolCalls.insert([{ ...record, status: 'refused', error: reason, finishedAt: now }]);
    deps.onCallFinished?.(spec.server, spec.tool, 'refused');
    return { text: reason, isError: true, callRecordId: record.id, status: 'refused' };
  };
  const parsed = await parseArguments(spec, JSON.stringify(call.args));
  if (!parsed.ok) return refuse(parsed.error);
  const verdict = tools.verdict(spec);
  if (verdict.kind === 'refuse') return refuse(verdict.reason);
  if (verdict.kind === 'approve') {
    const waiting: ToolCallRecord = { ...record, status: 'waiting_approval', approvalRequired: true, approvalExpiresAt: now + deps.approvalTimeoutMs };
    await deps.toolCalls.insert([waiting]);
    const decided = await awaitDecision(deps, waiting, call);
    if (decided.decision !== 'approved') {
      deps.onCallFinished?.(spec.server, spec.tool, 'denied');
      return { text: decided.message, isError: true, callRecordId: record.id, status: 'denied' };
    }
    const startedAt = Date.now();
    deps.inFlight?.started();
    return executing(deps, record.id, () => ended, async () => {
      // started with its lease in one write: never running without one
      await deps.toolCalls.start(record.id, startedAt, deps.inFlight?.lease(startedAt));
      return executeCall(ctx, { ...waiting, status: 'running', startedAt }, spec, parsed.args);
    });
  }
  const running: ToolCallRecord = { ...record, status: 'running', startedAt: now, lease: deps.inFlight?.lease(now) };
  deps.inFlight?.started();
  return executing(deps, record.id, () => ended, async () => {
    await deps.toolCalls.insert([running]);
    return executeCall(ctx, running, spec, parsed.args);
  });
}

/** the call executed, its lease renewed (CallsInFlight) until its record is final; `ended`: the status its end was recorded with */
async function executing(deps: GovernedCallDeps, id: string, ended: () => ToolCallStatus | undefined, execute: () => Promise<ToolResult>): Promise<GovernedResult> {
  try {
    const result = await execute();
    // a record another process made final first (interrupted: this one seemed dead) is read for its status
    const status = ended() ?? (await deps.toolCalls.get(id))?.status ?? (result.isError ? 'failed' : 'succeeded');
    return { ...result, callRecordId: id, status };
  } finally {
    deps.inFlight?.ended();
  }
}

function newRecord(call: GovernedCall, now: number): ToolCallRecord {
  return {
    id: `tc_${uuidV7(now).replace(/-/g, '')}`,
    callId: call.requestId,
    ownerKind: MCP_OWNER,
    ownerId: call.sessionId,
    agentId: '',
    keyName: call.keyName,
    turn: 0,
    server: call.spec.server,
    tool: call.spec.tool,
    arguments: JSON.stringify(call.args).slice(0, 64 * 1024),
    readOnly: call.spec.readOnly,
    status: 'running',
    createdAt: now,
    approvalRequired: false,
  };
}

type Decision = { decision: 'approved' } | { decision: 'denied' | 'expired'; message: string };

/**
 * The person's decision on a call stored as waiting: the client's user when it can be asked
 * (their answer recorded as any decision is, ToolCallsRepo.decide), else whoever decides on the
 * console, read from the record (any replica may take the decision) until approvalTimeout.
 */
async function awaitDecision(deps: GovernedCallDeps, record: ToolCallRecord, call: GovernedCall): Promise<Decision> {
  const by = `mcp client (key ${call.keyName})`;
  if (call.approval.elicit) {
    let accepted = false;
    try {
      accepted = await call.approval.elicit(approvalQuestion(call.spec, call.args));
    } catch {
      accepted = false;
    }
    const decided = await deps.toolCalls.decide(record.id, { decision: accepted ? 'approved' : 'denied', by, at: Date.now() });
    if (accepted && decided?.approval?.decision === 'approved') return { decision: 'approved' };
    return { decision: 'denied', message: `${call.spec.name} was declined by the client's user` };
  }
  const started = Date.now();
  const pollMs = call.approval.pollMs ?? 1000;
  for (;;) {
    const stored = await deps.toolCalls.get(record.id);
    const approval = stored?.approval;
    if (approval?.decision === 'approved') return { decision: 'approved' };
    if (approval) {
      const why = approval.decision === 'expired' ? `no one decided within tools.approvalTimeout` : `a person denied it${approval.reason ? `: ${approval.reason}` : ''}`;
      return { decision: approval.decision, message: `${call.spec.name} was not approved: ${why}` };
    }
    if (call.signal.aborted) {
      // the client gave up waiting: the call is refused for good, so no decision can run it later
      await deps.toolCalls.decide(record.id, { decision: 'denied', by, at: Date.now(), reason: 'the client cancelled the call' });
      return { decision: 'denied', message: `${call.spec.name} was cancelled by the client` };
    }
    if (Date.now() >= record.approvalExpiresAt!) {
      const expired = await deps.toolCalls.decide(record.id, { decision: 'expired', by: 'timeout', at: Date.now() });
      if (expired || !(await deps.toolCalls.get(record.id))?.approval) return { decision: 'expired', message: `${call.spec.name} was not approved: no one decided within tools.approvalTimeout` };
      continue;
    }
    call.approval.waiting?.(Date.now() - started);
    await pause(pollMs, call.signal);
  }
}

/** what the client's user is asked: the tool and its arguments as they will be sent */
export function approvalQuestion(spec: ToolSpec, args: Record<string, unknown>): string {
  const shown = JSON.stringify(args, null, 2);
  return `Allow herald to call ${spec.name}${spec.description ? ` (${spec.description.slice(0, 200)})` : ''} with these arguments?\n${shown.length > 4000 ? `${shown.slice(0, 4000)}\n…` : shown}`;
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
