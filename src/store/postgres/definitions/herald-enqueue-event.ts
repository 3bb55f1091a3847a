import type { Definition } from './definition.js';

export const heraldEnqueueEvent: Definition = {
  name: 'herald_enqueue_event',
  sql: `
    CREATE FUNCTION herald_enqueue_event(p_session TEXT, p_text TEXT, p_max INT, p_now BIGINT, p_untrusted BOOLEAN DEFAULT FALSE)
    RETURNS SETOF events LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
    DECLARE
      prev events%ROWTYPE;
      added events%ROWTYPE;
    BEGIN
      SELECT * INTO prev FROM events WHERE session = p_session ORDER BY created_at DESC, id DESC LIMIT 1;
      IF FOUND AND prev.text = p_text AND prev.status IN ('pending', 'processing') THEN
        RETURN;
      END IF;
      INSERT INTO events (session, text, status, created_at, untrusted) VALUES (p_session, p_text, 'pending', p_now, p_untrusted) RETURNING * INTO added;
      PERFORM herald_drop_overflow(p_session, p_max);
      RETURN NEXT added;
    END $$;
  `,
};
