import type { Logger } from 'pino';
import type { AgentDirectory } from '../../agents/agent-directory.js';
import type { AgentTurnDeps } from '../../agents/agent-turn.js';
import type { HeraldConfig } from '../../config/schema.js';
import type { RunCompletion, RunRecord, Store, ToolCallRecord } from '../../store/port.js';
import type { Heartbeat } from '../heartbeat.js';
import type { MainSession } from '../main-session.js';
import type { ReplyDelivery } from '../delivery/reply-delivery.js';
import type { RunClaims } from './run-claims.js';
import type { Slots } from './slots.js';
import type { Turns } from './turns.js';

export interface RunQueueDeps {
  config: HeraldConfig;
  store: Store;
  /** what an agent turn needs: models, sessions, and the knowledge base a run's model sees passages of */
  agentTurn: AgentTurnDeps;
  agents: AgentDirectory;
  mainSession: MainSession;
  /** asks for a heartbeat turn (on whichever process holds the heartbeat) */
  heartbeat: Pick<Heartbeat, 'request'>;
  delivery: ReplyDelivery;
  logger: Logger;
  /** a run paused for a person's approval of these calls (announced to the approvals targets) */
  onApprovalNeeded?: (run: RunRecord, pending: ToolCallRecord[]) => Promise<void> | void;
  /** told of each direct call's end (a mapping's or schedule's `tool` run; metrics) */
  onDirectCallFinished?: (source: 'mapping' | 'schedule', server: string, tool: string, outcome: Exclude<ToolCallRecord['status'], 'waiting_approval' | 'running'>, seconds?: number) => void;
  /** told of each run that reached a final status (metrics) */
  onRunFinished?: (status: RunCompletion['status']) => void;
}

/** what executing and completing a run use of their process's run queue */
export interface RunContext {
  deps: RunQueueDeps;
  claims: RunClaims;
  slots: Slots;
  turns: Turns;
  /** runs whose completion is being written: their lease needs no renewal */
  completing: Set<string>;
}
