import type { Definition } from './definition.js';

export const heraldDropOverflow: Definition = {
  name: 'herald_drop_overflow',
  sql: `
    -- plpgsql, not sql: its plan is kept for the connection, not made again at every call; and
    -- generic at once (its plan does not depend on the session or the limit), not after the plan
    -- cache's five custom plans
    CREATE FUNCTION herald_drop_overflow(p_session TEXT, p_max INT) RETURNS void LANGUAGE plpgsql
    SET plan_cache_mode = force_generic_plan AS $f$
    BEGIN
      -- rows locked in id order (as every other writer of events locks them); SKIP LOCKED: a row
      -- held by another drop is being dropped, one held by a claim is being taken
      UPDATE events SET status = 'dropped' WHERE events.id IN (
        SELECT d.id FROM events d
        WHERE d.session = p_session AND d.status = 'pending' AND d.id <=
          (SELECT e.id FROM events e WHERE e.session = p_session AND e.status = 'pending' ORDER BY e.id DESC LIMIT 1 OFFSET p_max)
        ORDER BY d.id FOR UPDATE SKIP LOCKED);
    END $f$;
  `,
};
