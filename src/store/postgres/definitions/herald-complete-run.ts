import type { Definition } from './definition.js';

export const heraldCompleteRun: Definition = {
  name: 'herald_complete_run',
  sql: `
    CREATE FUNCTION herald_complete_run(
      p_id TEXT, p_status TEXT, p_reply TEXT, p_error TEXT, p_finished_at BIGINT, p_model TEXT,
      p_roles TEXT[], p_contents TEXT[], p_run_ids TEXT[], p_metas JSONB[], p_created_at BIGINT[],
      p_summary_session TEXT, p_summary_text TEXT, p_max_pending INT, p_now BIGINT, p_summary_untrusted BOOLEAN)
    RETURNS boolean LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
    DECLARE
      v_session TEXT;
    BEGIN
      UPDATE runs SET status = p_status, reply = p_reply, error = p_error, finished_at = p_finished_at, model = p_model,
        lease_owner = NULL, lease_until = NULL
      WHERE id = p_id AND status IN ('queued', 'running') AND NOT waiting
      RETURNING session_key INTO v_session;
      IF NOT FOUND THEN
        RETURN false;
      END IF;
      INSERT INTO session_messages (session_key, role, content, run_id, meta, created_at)
        SELECT v_session, m.role, m.content, m.run_id, m.meta, m.created_at
        FROM unnest(p_roles, p_contents, p_run_ids, p_metas, p_created_at) WITH ORDINALITY AS m(role, content, run_id, meta, created_at, n)
        ORDER BY m.n;
      PERFORM herald_enqueue_event(p_summary_session, p_summary_text, p_max_pending, p_now, p_summary_untrusted);
      RETURN true;
    END $$;
  `,
};
