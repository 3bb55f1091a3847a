export interface SessionMessage {
  /** `tool`: a client tool's result (its call id, and the assistant's calls, are in `meta`) */
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  createdAt: number;
  runId?: string | null;
  meta?: Record<string, unknown> | null;
}

export interface SessionsRepo {
  append(sessionKey: string, message: SessionMessage): Promise<void>;
  /**
   * Appends messages to a session in one transaction: a turn's question and its answer are
   * stored together or not at all, never a question without its answer. `fresh`: the caller
   * made the session's key just now (a new chat conversation), so nothing of it is stored yet.
   */
  appendMany(sessionKey: string, messages: SessionMessage[], fresh?: boolean): Promise<void>;
  messages(sessionKey: string, limit?: number): Promise<SessionMessage[]>;
  exists(sessionKey: string): Promise<boolean>;
}
