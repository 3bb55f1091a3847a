import type pg from 'pg';
import type { QuestionsRepo, ToolQuestionRecord } from '../port.js';
import { query } from './pg-pool.js';

interface QuestionRow {
  id: string;
  tool_call_id: string;
  owner_kind: ToolQuestionRecord['ownerKind'];
  owner_id: string;
  agent_id: string;
  server: string;
  mode: ToolQuestionRecord['mode'];
  message: string;
  requested_schema: Record<string, unknown> | null;
  url: string | null;
  status: ToolQuestionRecord['status'];
  content: Record<string, unknown> | null;
  answered_by: string | null;
  created_at: string | number;
  expires_at: string | number;
  answered_at: string | number | null;
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
  requestedSchema: row.requested_schema,
  url: row.url,
  status: row.status,
  content: row.content,
  answeredBy: row.answered_by,
  createdAt: Number(row.created_at),
  expiresAt: Number(row.expires_at),
  answeredAt: row.answered_at === null ? null : Number(row.answered_at),
});

export function postgresQuestionsRepo(pool: pg.Pool): QuestionsRepo {
  return {
    async create(q) {
      await query(
        pool,
        `INSERT INTO tool_questions (id, tool_call_id, owner_kind, owner_id, agent_id, server, mode, message, requested_schema, url, status, content, answered_by, created_at, expires_at, answered_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10, $11, $12::jsonb, $13, $14, $15, $16)`,
        [
          q.id, q.toolCallId, q.ownerKind, q.ownerId, q.agentId, q.server, q.mode, q.message,
          q.requestedSchema === null ? null : JSON.stringify(q.requestedSchema), q.url, q.status,
          q.content === null ? null : JSON.stringify(q.content), q.answeredBy, q.createdAt, q.expiresAt, q.answeredAt,
        ],
      );
    },
    async get(id) {
      const { rows } = await query<QuestionRow>(pool, 'SELECT * FROM tool_questions WHERE id = $1', [id]);
      return rows[0] && toQuestion(rows[0]);
    },
    async pending(limit) {
      const { rows } = await query<QuestionRow>(pool, "SELECT * FROM tool_questions WHERE status = 'pending' ORDER BY created_at, id LIMIT $1", [limit]);
      return rows.map(toQuestion);
    },
    async settle(id, answer) {
      // only a pending question is settled: of two answers, the second changes nothing
      const { rows } = await query<QuestionRow>(
        pool,
        "UPDATE tool_questions SET status = $1, content = $2::jsonb, answered_by = $3, answered_at = $4 WHERE id = $5 AND status = 'pending' RETURNING *",
        [answer.status, answer.content === undefined ? null : JSON.stringify(answer.content), answer.by, answer.at, id],
      );
      return rows[0] && toQuestion(rows[0]);
    },
  };
}
