import type { ToolCallOwner } from './tool-calls-port.js';

/**
 * Questions an MCP server asked a person during a tool call (MCP elicitation), on the record
 * beside the approvals: asked, then settled once by a person's answer, the call's timeout, or
 * the call's end.
 */
export type QuestionStatus = 'pending' | 'accepted' | 'declined' | 'cancelled';

export interface ToolQuestionRecord {
  /** herald's id of the question (q_…) */
  id: string;
  /** the record id of the tool call it came during (tc_…) */
  toolCallId: string;
  ownerKind: ToolCallOwner;
  ownerId: string;
  agentId: string;
  server: string;
  /** `form`: a form drawn from `requestedSchema`; `url`: a page the person opens */
  mode: 'form' | 'url';
  /** the server's text, shown as the server's */
  message: string;
  /** form mode: the server's flat JSON Schema of the answer */
  requestedSchema: Record<string, unknown> | null;
  /** url mode: the page */
  url: string | null;
  status: QuestionStatus;
  /** an accepted form's answer, the schema's defaults filled in */
  content: Record<string, unknown> | null;
  /** who settled it: the admin caller's name, or `timeout` / `call ended` */
  answeredBy: string | null;
  createdAt: number;
  /** unanswered by then, it is cancelled (the call's timeout) */
  expiresAt: number;
  answeredAt: number | null;
}

export interface QuestionAnswer {
  status: Exclude<QuestionStatus, 'pending'>;
  content?: Record<string, unknown>;
  by: string;
  at: number;
}

export interface QuestionsRepo {
  create(question: ToolQuestionRecord): Promise<void>;
  get(id: string): Promise<ToolQuestionRecord | undefined>;
  /** the questions still pending, oldest first */
  pending(limit: number): Promise<ToolQuestionRecord[]>;
  /** settles a pending question, atomically (of two answers one wins): the settled record, or undefined when it was not pending */
  settle(id: string, answer: QuestionAnswer): Promise<ToolQuestionRecord | undefined>;
}
