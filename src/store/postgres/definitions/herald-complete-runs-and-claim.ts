import type { Definition } from './definition.js';

export const heraldCompleteRunsAndClaim: Definition = {
  name: 'herald_complete_runs_and_claim',
  sql: `
    CREATE FUNCTION herald_complete_runs_and_claim(p_batch JSONB)
    RETURNS TABLE (n INT, finished BOOLEAN, id TEXT, status TEXT, agent_id TEXT, name TEXT, session_key TEXT, message TEXT, action JSONB,
      reply TEXT, error TEXT, created_at BIGINT, started_at BIGINT, finished_at BIGINT, rerun_of TEXT, model TEXT, not_before BIGINT,
      waited_for TEXT, coalesced JSONB, turn_state JSONB, trace_context TEXT, seq BIGINT, behind BOOLEAN)
    LANGUAGE plpgsql SET search_path FROM CURRENT SET plan_cache_mode = force_generic_plan
      SET herald.runs_counted = 'by_caller' SET herald.event_inserts_counted = 'by_caller' AS $$
    #variable_conflict use_column
    DECLARE
      c JSONB;
      i INT := 0;
      v_session TEXT;
      v_done INT[] := '{}';
      v_done_sessions TEXT[] := '{}';
      v_refused INT[] := '{}';
      v_queues TEXT[] := '{}';
      v_maxes INT[] := '{}';
      v_prev_text TEXT;
      v_prev_live BOOLEAN;
      v_last JSONB;
      v_from TEXT;
      v_moves TEXT[] := '{}';
      v_events INT := 0;
    BEGIN
      FOR c IN SELECT e.value FROM jsonb_array_elements(p_batch) WITH ORDINALITY AS e(value, o) ORDER BY e.o LOOP
        i := i + 1;
        -- the status it leaves, for the counts: a completion ends a running run but for a rare
        -- one (its lease lost and the run given back to the queue), so that is tried first
        FOREACH v_from IN ARRAY ARRAY['running', 'queued'] LOOP
          UPDATE runs SET status = c->>'status', reply = c->>'reply', error = c->>'error', finished_at = (c->>'at')::bigint,
            model = c->>'model', lease_owner = NULL, lease_until = NULL
          WHERE runs.id = c->>'id' AND runs.status = v_from AND NOT runs.waiting
          RETURNING runs.session_key INTO v_session;
          EXIT WHEN FOUND;
        END LOOP;
        -- (FOUND says the loop ran, not that a row was: the row's session says it)
        IF v_session IS NULL THEN
          v_refused := v_refused || i;
          CONTINUE;
        END IF;
        v_moves := v_moves || v_from || (c->>'status');
        v_done := v_done || i;
        v_done_sessions := v_done_sessions || v_session;
        v_last := c;
        SELECT e.text, e.status IN ('pending', 'processing') INTO v_prev_text, v_prev_live
          FROM events e WHERE e.session = c->>'summarySession' ORDER BY e.created_at DESC, e.id DESC LIMIT 1;
        IF NOT (FOUND AND v_prev_live AND v_prev_text = c->>'summaryText') THEN
          INSERT INTO events (session, text, status, created_at, untrusted)
            VALUES (c->>'summarySession', c->>'summaryText', 'pending', (c->>'now')::bigint, (c->>'untrusted')::boolean);
          v_events := v_events + 1;
        END IF;
        IF NOT EXISTS (SELECT 1 FROM unnest(v_queues, v_maxes) AS q(s, m) WHERE q.s = c->>'summarySession' AND q.m = (c->>'maxPending')::int) THEN
          v_queues := v_queues || (c->>'summarySession');
          v_maxes := v_maxes || (c->>'maxPending')::int;
        END IF;
      END LOOP;
      IF array_length(v_done, 1) IS NOT NULL THEN
        INSERT INTO session_messages (session_key, role, content, run_id, meta, created_at)
          SELECT d.session, m.value->>'role', m.value->>'content', m.value->>'runId', NULLIF(m.value->'meta', 'null'::jsonb), (m.value->>'createdAt')::bigint
          FROM unnest(v_done, v_done_sessions) WITH ORDINALITY AS d(n, session, k)
          CROSS JOIN LATERAL jsonb_array_elements(p_batch->(d.n - 1)->'messages') WITH ORDINALITY AS m(value, o)
          ORDER BY d.k, m.o;
        FOR k IN 1 .. array_length(v_queues, 1) LOOP
          PERFORM herald_drop_overflow(v_queues[k], v_maxes[k]);
        END LOOP;
      END IF;
      -- each status a run left counts one fewer, each entered one more (a completion enters no
      -- counted one), and each summary event inserted one more pending
      INSERT INTO store_counts (name, shard, n)
        SELECT c.name, pg_backend_pid(), sum(c.n) FROM (
          SELECT 'runs:' || m.status AS name, CASE WHEN m.o % 2 = 1 THEN -1 ELSE 1 END AS n
          FROM unnest(v_moves) WITH ORDINALITY AS m(status, o) WHERE m.status IN ('queued', 'running')
          UNION ALL SELECT 'events:pending', v_events WHERE v_events > 0) c
        GROUP BY c.name
      ON CONFLICT (name, shard) DO UPDATE SET n = store_counts.n + EXCLUDED.n;
      RETURN QUERY
        WITH claimed AS (
          SELECT cl.*, row_number() OVER (ORDER BY cl.seq) AS k
          FROM herald_claim_runs(v_last->>'owner', (v_last->>'claimNow')::bigint, (v_last->>'until')::bigint, COALESCE(array_length(v_done, 1), 0)) cl
          WHERE v_last IS NOT NULL)
        SELECT d.n, true, cl.id, cl.status, cl.agent_id, cl.name, cl.session_key, cl.message, cl.action, cl.reply, cl.error,
          cl.created_at, cl.started_at, cl.finished_at, cl.rerun_of, cl.model, cl.not_before, cl.waited_for, cl.coalesced, cl.turn_state, cl.trace_context, cl.seq, cl.behind
        FROM unnest(v_done) WITH ORDINALITY AS d(n, k) LEFT JOIN claimed cl ON cl.k = d.k
        UNION ALL
        SELECT r.n, false, NULL, NULL, NULL, NULL, NULL, NULL, NULL::jsonb, NULL, NULL, NULL::bigint, NULL::bigint, NULL::bigint, NULL, NULL,
          NULL::bigint, NULL, NULL::jsonb, NULL::jsonb, NULL, NULL::bigint, NULL::boolean
        FROM unnest(v_refused) AS r(n);
    END $$;
  `,
};
