import type { ToolCallOwner } from '../../store/contracts/tool-calls-port.js';

/** a server's question (MCP `elicitation/create`), as herald puts it to a person */
export interface ServerQuestion {
  server: string;
  /** the call it came during */
  call: { agentId: string; callRecordId: string; owner: { kind: ToolCallOwner; id: string } };
  mode: 'form' | 'url';
  message: string;
  requestedSchema?: Record<string, unknown>;
  url?: string;
  /** unanswered by then, the question is cancelled */
  timeoutMs: number;
  /** the call ended (its run cancelled, its total limit): the question is cancelled */
  signal: AbortSignal;
}

/** a person's answer, as MCP's ElicitResult */
export interface QuestionAnswer {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, string | number | boolean | string[]>;
}

/**
 * Where a server's questions go: the runtime puts a hook run's to a person (beside the
 * approvals) and declines those of turns no person waits for. Without it, every question is declined.
 */
export interface ServerQuestions {
  ask(question: ServerQuestion): Promise<QuestionAnswer>;
}
