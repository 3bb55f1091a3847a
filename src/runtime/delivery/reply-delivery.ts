import type { AgentAction } from '../../mappings/hook-action.js';
import type { RunRecord } from '../../store/port.js';

/** Where finished replies go: implemented by the durable outbox (`delivery-outbox.ts`). */
export interface ReplyDelivery {
  /** a run finished with a reply (already known not to be a bare heartbeat ack) */
  deliverRunReply(run: RunRecord, action: AgentAction, reply: string): Promise<void>;
  /** a heartbeat produced something worth saying: it goes to the main session's last route */
  deliverHeartbeatReply(reply: string): Promise<void>;
  start(): Promise<void>;
  /** stops sending; sends in flight get `graceMs` to finish before they are aborted and handed back */
  stop(graceMs?: number): Promise<void>;
}

/**
 * The hook's own HTTP answer carried the reply (`respond.waitMs`, a Slack slash command's answer):
 * the run finished before the answer stopped waiting. Such a reply is never delivered again.
 */
export function answeredInResponse(action: Pick<AgentAction, 'replyAwaitedUntil'>, finishedAt: number | null): boolean {
  return action.replyAwaitedUntil !== undefined && finishedAt !== null && finishedAt < action.replyAwaitedUntil;
}

/** The intended target, as the run's action recorded it. */
export function intendedTarget(run: RunRecord) {
  const action = run.action as Partial<AgentAction>;
  return { deliver: action.deliver ?? true, channel: action.channel ?? 'last', to: action.to ?? null };
}

/**
 * What a reply is to its delivery, in OpenClaw's words: `visible` is sent; `silent` (only a
 * heartbeat acknowledgement, or the agent's explicit `NO_REPLY`) and `empty` (no text) are not.
 */
export type ReplyDisposition = 'visible' | 'silent' | 'empty';

export function replyDisposition(reply: string | null | undefined, ackMaxChars: number): ReplyDisposition {
  const text = reply?.trim() ?? '';
  if (!text) return 'empty';
  return text === 'NO_REPLY' || isHeartbeatAck(text, ackMaxChars) ? 'silent' : 'visible';
}

/** A reply that is only a heartbeat acknowledgement is never delivered. */
export function isHeartbeatAck(reply: string, ackMaxChars: number): boolean {
  const text = reply.trim();
  return text.includes('HEARTBEAT_OK') && text.length <= ackMaxChars;
}
