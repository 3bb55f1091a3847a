import type { Definition } from './definition.js';

export const heraldRunInserted: Definition = {
  name: 'herald_run_inserted',
  sql: `
    CREATE FUNCTION herald_run_inserted() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
    BEGIN
      IF NEW.status IN ('queued', 'running') THEN
        PERFORM pg_advisory_xact_lock(hashtext('herald.runs:' || current_schema() || ':' || NEW.session_key));
        NEW.waiting := EXISTS (SELECT 1 FROM runs WHERE session_key = NEW.session_key AND status IN ('queued', 'running', 'waiting_approval'));
      END IF;
      RETURN NEW;
    END $$;
  `,
};
