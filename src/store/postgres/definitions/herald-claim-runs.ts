import type { Definition } from './definition.js';

export const heraldClaimRuns: Definition = {
  name: 'herald_claim_runs',
  sql: `
    CREATE FUNCTION herald_claim_runs(p_owner TEXT, p_now BIGINT, p_until BIGINT, p_limit INT)
    RETURNS TABLE (id TEXT, status TEXT, agent_id TEXT, name TEXT, session_key TEXT, message TEXT, action JSONB,
      reply TEXT, error TEXT, created_at BIGINT, started_at BIGINT, finished_at BIGINT, rerun_of TEXT, model TEXT, not_before BIGINT,
      waited_for TEXT, coalesced JSONB, turn_state JSONB, trace_context TEXT, seq BIGINT, behind BOOLEAN)
    LANGUAGE plpgsql SET search_path FROM CURRENT SET enable_bitmapscan = off SET enable_seqscan = off SET plan_cache_mode = force_generic_plan
      SET herald.runs_counted = 'by_caller' AS $$
    #variable_conflict use_column
    BEGIN
      RETURN QUERY
        WITH expired AS (
          SELECT r.id, r.seq FROM runs r
          WHERE NOT r.waiting AND r.status = 'running' AND r.concurrency IS NULL AND COALESCE(r.lease_until, 0) < p_now
            AND (r.not_before IS NULL OR r.not_before <= p_now)
          ORDER BY COALESCE(r.lease_until, 0) LIMIT p_limit
          FOR UPDATE SKIP LOCKED),
        queued AS (
          SELECT r.id, r.seq FROM runs r
          WHERE NOT r.waiting AND r.status = 'queued' AND r.concurrency IS NULL AND (r.not_before IS NULL OR r.not_before <= p_now)
          ORDER BY r.seq LIMIT p_limit
          FOR UPDATE SKIP LOCKED),
        candidates AS (
          SELECT c.id, c.was_queued FROM (SELECT e.id, e.seq, false AS was_queued FROM expired e UNION ALL SELECT q.id, q.seq, true FROM queued q) c
          ORDER BY c.seq LIMIT p_limit),
        claimed AS (
          UPDATE runs SET status = 'running', started_at = COALESCE(runs.started_at, p_now), lease_owner = p_owner, lease_until = p_until
          FROM candidates WHERE runs.id = candidates.id
          RETURNING runs.id, runs.status, runs.agent_id, runs.name, runs.session_key, runs.message, runs.action, runs.reply, runs.error,
            runs.created_at, runs.started_at, runs.finished_at, runs.rerun_of, runs.model, runs.not_before, runs.waited_for, runs.coalesced, runs.turn_state, runs.trace_context, runs.seq,
            EXISTS (SELECT 1 FROM runs b WHERE b.session_key = runs.session_key AND b.status IN ('queued', 'running') AND b.seq > runs.seq) AS behind,
            candidates.was_queued),
        -- a data-modifying WITH runs once, read or not
        counted AS (
          INSERT INTO store_counts (name, shard, n)
            SELECT c.name, pg_backend_pid(), c.n FROM (SELECT count(*) AS k FROM claimed cl WHERE cl.was_queued) q
            CROSS JOIN LATERAL (VALUES ('runs:queued', -q.k), ('runs:running', q.k)) AS c(name, n) WHERE q.k > 0
          ON CONFLICT (name, shard) DO UPDATE SET n = store_counts.n + EXCLUDED.n)
        SELECT cl.id, cl.status, cl.agent_id, cl.name, cl.session_key, cl.message, cl.action, cl.reply, cl.error, cl.created_at, cl.started_at,
          cl.finished_at, cl.rerun_of, cl.model, cl.not_before, cl.waited_for, cl.coalesced, cl.turn_state, cl.trace_context, cl.seq, cl.behind
        FROM claimed cl;
    END $$;
  `,
};
