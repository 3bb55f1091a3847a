import type { QuestionsRepo, ToolQuestionRecord } from '../port.js';
import type { SqliteDatabase } from './open-database.js';

interface QuestionRow {
  id: string;
  tool_call_id: string;
  owner_kind: ToolQuestionRecord['ownerKind'];
  owner_id: string;
  agent_id: string;
  server: string;
  mode: ToolQuestionRecord['mode'];
  message: string;
  requested_schema: string | null;
  url: string | null;
  status: ToolQuestionRecord['status'];
  content: string | null;
  answered_by: string | null;
  created_at: number;
  expires_at: number;
  answered_at: number | null;
}

const toQuestion = (row: QuestionRow): ToolQuestionRecord => ({
  id: row.id,
  toolCallId: row.tool_call_id,
  ownerKind: row.owner_kind,
  ownerId: row.owner_id,
  agentId: row.agent_id,
  server: row.server,
  mode: row.mode,
  message: row.message,
  requestedSchema: row.requested_schema === null ? null : (JSON.parse(row.requested_schema) as Record<string, unknown>),
  url: row.url,
  status: row.status,
  content: row.content === null ? null : (JSON.parse(row.content) as Record<string, unknown>),
  answeredBy: row.answered_by,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
  answeredAt: row.answered_at,
});

export function sqliteQuestionsRepo(db: SqliteDatabase): QuestionsRepo {
  const insert = db.prepare(
    `INSERT INTO tool_questions (id, tool_call_id, owner_kind, owner_id, agent_id, server, mode, message, requested_schema, url, status, content, answered_by, created_at, expires_at, answered_at)
     VALUES (@id, @tool_call_id, @owner_kind, @owner_id, @agent_id, @server, @mode, @message, @requested_schema, @url, @status, @content, @answered_by, @created_at, @expires_at, @answered_at)`,
  );
  const byId = db.prepare<[string], QuestionRow>('SELECT * FROM tool_questions WHERE id = ?');
  const pending = db.prepare<[number], QuestionRow>("SELECT * FROM tool_questions WHERE status = 'pending' ORDER BY created_at, id LIMIT ?");
  // only a pending question is settled: of two answers, the second changes nothing
  const settle = db.prepare<[string, string | null, string, number, string], QuestionRow>(
    "UPDATE tool_questions SET status = ?, content = ?, answered_by = ?, answered_at = ? WHERE id = ? AND status = 'pending' RETURNING *",
  );
  return {
    async create(q) {
      insert.run({
        id: q.id,
        tool_call_id: q.toolCallId,
        owner_kind: q.ownerKind,
        owner_id: q.ownerId,
        agent_id: q.agentId,
        server: q.server,
        mode: q.mode,
        message: q.message,
        requested_schema: q.requestedSchema === null ? null : JSON.stringify(q.requestedSchema),
        url: q.url,
        status: q.status,
        content: q.content === null ? null : JSON.stringify(q.content),
        answered_by: q.answeredBy,
        created_at: q.createdAt,
        expires_at: q.expiresAt,
        answered_at: q.answeredAt,
      });
    },
    async get(id) {
      const row = byId.get(id);
      return row && toQuestion(row);
    },
    async pending(limit) {
      return pending.all(limit).map(toQuestion);
    },
    async settle(id, answer) {
      const row = settle.get(answer.status, answer.content === undefined ? null : JSON.stringify(answer.content), answer.by, answer.at, id);
      return row && toQuestion(row);
    },
  };
}
