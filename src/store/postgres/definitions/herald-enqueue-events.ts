import type { Definition } from './definition.js';

export const heraldEnqueueEvents: Definition = {
  name: 'herald_enqueue_events',
  sql: `
    CREATE FUNCTION herald_enqueue_events(p_session TEXT, p_texts TEXT[], p_max INT, p_now BIGINT)
    RETURNS TABLE (n INT, id BIGINT) LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
    DECLARE
      prev_text TEXT;
      prev_live BOOLEAN;
    BEGIN
      IF p_max < 1 THEN
        FOR i IN 1 .. COALESCE(array_length(p_texts, 1), 0) LOOP
          RETURN QUERY SELECT i, e.id FROM herald_enqueue_event(p_session, p_texts[i], p_max, p_now) e;
        END LOOP;
        RETURN;
      END IF;
      SELECT e.text, e.status IN ('pending', 'processing') INTO prev_text, prev_live
        FROM events e WHERE e.session = p_session ORDER BY e.created_at DESC, e.id DESC LIMIT 1;
      RETURN QUERY
        WITH input AS (
          SELECT t.text, t.n::int AS n, lag(t.text) OVER (ORDER BY t.n) AS before
          FROM unnest(p_texts) WITH ORDINALITY AS t(text, n)),
        kept AS (
          SELECT i.text, i.n FROM input i
          WHERE NOT CASE WHEN i.n = 1 THEN COALESCE(prev_live AND prev_text = i.text, false) ELSE i.before = i.text END),
        added AS (
          INSERT INTO events (session, text, status, created_at) SELECT p_session, k.text, 'pending', p_now FROM kept k ORDER BY k.n
          RETURNING events.id)
        SELECT k.n, a.id
        FROM (SELECT kept.n, row_number() OVER (ORDER BY kept.n) AS r FROM kept) k
        JOIN (SELECT added.id, row_number() OVER (ORDER BY added.id) AS r FROM added) a ON a.r = k.r;
      PERFORM herald_drop_overflow(p_session, p_max);
    END $$;
  `,
};
