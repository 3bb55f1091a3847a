import type { Definition } from './definition.js';

export const heraldRunEnded: Definition = {
  name: 'herald_run_ended',
  sql: `
    CREATE FUNCTION herald_run_ended() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
    DECLARE
      next_id TEXT;
    BEGIN
      PERFORM pg_advisory_xact_lock(hashtext('herald.runs:' || current_schema() || ':' || OLD.session_key));
      LOOP
        SELECT id INTO next_id FROM runs WHERE session_key = OLD.session_key AND status IN ('queued', 'running', 'waiting_approval') ORDER BY seq LIMIT 1;
        EXIT WHEN NOT FOUND;
        UPDATE runs SET waiting = false WHERE id = next_id AND status IN ('queued', 'running', 'waiting_approval');
        EXIT WHEN FOUND;
      END LOOP;
      RETURN NULL;
    END $$;
  `,
};
