import type { ChatMessage } from '../../models/provider.js';
import type { ToolCallRecord } from '../../store/port.js';
import { executeCall, toolMessage, type RoundContext, type RoundResult } from './tool-round.js';
import type { TurnCheckpoint } from './tool-ledger.js';

/** what the model (or an MCP call's record) is told of a call that was running when its process died */
export const INTERRUPTED =
  'the call was interrupted: herald stopped while it ran, and it was not executed again (it may or may not have taken effect; check before calling it again)';

/**
 * The results of a checkpointed round, for a turn that goes on after a crash or an approval:
 * what was recorded is given back as it was; a call a person approved executes now; a denied one
 * is refused with who decided and why; a call that was running when its process died is marked
 * interrupted and not executed again, unless its tool only reads or its server runs it as a task
 * (then the task is polled for its result).
 */
export async function resumeRound(ctx: RoundContext, checkpoint: TurnCheckpoint): Promise<RoundResult> {
  const asked = checkpoint.messages.at(-1);
  const calls = asked?.role === 'assistant' ? (asked.tool_calls ?? []) : [];
  const records = (await ctx.ledger.recorded()).filter((r) => r.turn === checkpoint.round);
  const messages: ChatMessage[] = [];
  const pending: ToolCallRecord[] = [];
  const settled = await Promise.all(
    calls.map(async (call) => {
      const record = records.find((r) => r.callId === call.id);
      if (!record) return toolMessage(call.id, { text: INTERRUPTED, isError: true });
      const spec = ctx.tools.byName(call.function.name);
      switch (record.status) {
        case 'succeeded':
          return toolMessage(call.id, { text: record.result ?? '', isError: false });
        case 'failed':
        case 'timed_out':
        case 'refused':
        case 'interrupted':
          return toolMessage(call.id, { text: record.error ?? record.status, isError: true });
        case 'denied':
          ctx.onCallFinished?.(record.server, record.tool, 'denied');
          return toolMessage(call.id, { text: refusalText(record), isError: true });
        case 'running':
          // a call its server runs as a task is polled for the task's result, never made again (taskOptions)
          if (spec && record.task) return toolMessage(call.id, await executeCall(ctx, record, spec, argumentsOf(record)));
          // only a call recorded as a read, of a tool that still only reads, is made again
          if (spec?.readOnly && record.readOnly) return toolMessage(call.id, await executeCall(ctx, record, spec, argumentsOf(record)));
          await ctx.ledger.finish(record.id, { status: 'interrupted', error: INTERRUPTED, finishedAt: Date.now() });
          ctx.onCallFinished?.(record.server, record.tool, 'interrupted');
          return toolMessage(call.id, { text: INTERRUPTED, isError: true });
        case 'waiting_approval': {
          if (!record.approval) {
            pending.push(record);
            return undefined;
          }
          // approved, but its tool is not there: its server is down (a server not connected since
          // the start lists no tools), so the call failed; or a reload withdrew the grant since, so it is refused
          if (!spec) {
            const down = ctx.tools.unavailable?.(record.server, call.function.name);
            const status = down ? 'failed' : 'refused';
            const error = down ?? `no tool named "${call.function.name}" is granted to this agent any longer`;
            await ctx.ledger.finish(record.id, { status, error, finishedAt: Date.now() });
            ctx.onCallFinished?.(record.server, record.tool, status);
            return toolMessage(call.id, { text: error, isError: true });
          }
          await ctx.ledger.start(record.id, Date.now());
          return toolMessage(call.id, await executeCall(ctx, record, spec, argumentsOf(record)));
        }
      }
    }),
  );
  for (const message of settled) if (message) messages.push(message);
  return { messages, pending };
}

function refusalText(record: ToolCallRecord): string {
  const approval = record.approval;
  if (approval?.decision === 'expired') return 'a person was asked to approve this call and did not answer in time: it was not executed';
  const why = approval?.reason ? `: ${approval.reason}` : '';
  return `a person (${approval?.by ?? 'an operator'}) refused this call${why}. It was not executed.`;
}

function argumentsOf(record: ToolCallRecord): Record<string, unknown> {
  try {
    const args = JSON.parse(record.arguments || '{}');
    return args && typeof args === 'object' && !Array.isArray(args) ? args : {};
  } catch {
    return {};
  }
}
