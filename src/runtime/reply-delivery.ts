import type { AgentAction } from '../mappings/hook-action.js';
import type { RunRecord } from '../store/port.js';

/** Where finished replies go: implemented by the durable outbox (`delivery-outbox.ts`). */
export interface ReplyDelivery {
  /** a run finished with a reply (already known not to be a bare heartbeat ack) */
  deliverRunReply(run: RunRecord, action: AgentAction, reply: string): Promise<void>;
  /** a heartbeat produced something worth saying: it goes to the main session's last route */
  deliverHeartbeatReply(reply: string): Promise<void>;
  /** what GET /admin/runs/:id shows under `delivery` */
  describe(run: RunRecord): Promise<unknown>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** The intended target, as the run's action recorded it. */
export function intendedTarget(run: RunRecord) {
  const action = run.action as Partial<AgentAction>;
  return { deliver: action.deliver ?? true, channel: action.channel ?? 'last', to: action.to ?? null };
}

/** A reply that is only a heartbeat acknowledgement is never delivered. */
export function isHeartbeatAck(reply: string, ackMaxChars: number): boolean {
  const text = reply.trim();
  return text.includes('HEARTBEAT_OK') && text.length <= ackMaxChars;
}
