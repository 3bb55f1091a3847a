import type { Definition } from './definition.js';

export const heraldClaimEvents: Definition = {
  name: 'herald_claim_events',
  sql: `
    -- The heartbeat's claim: the session's pending events, and processing ones whose lease ran
    -- out, oldest first, with the queue's rules applied to them, whatever got in past the
    -- enqueue: an event repeating the one before it is dropped, and of the pending ones only
    -- the newest p_max are taken (the older dropped). Returns the events taken.
    CREATE FUNCTION herald_claim_events(p_session TEXT, p_owner TEXT, p_now BIGINT, p_until BIGINT, p_max INT)
    RETURNS SETOF events LANGUAGE sql AS $f$
      WITH open AS (
        SELECT e.id, e.text, e.status FROM events e
        WHERE e.session = p_session AND e.status IN ('pending', 'processing') AND (e.status = 'pending' OR e.lease_until IS NULL OR e.lease_until < p_now)
        ORDER BY e.id
        -- never wait on another claimer, nor on an enqueue's drop
        FOR UPDATE SKIP LOCKED),
      judged AS (
        SELECT o.id, o.status, COALESCE(o.text = lag(o.text) OVER (ORDER BY o.id), false) AS repeat FROM open o),
      kept AS (
        SELECT j.id, NOT j.repeat AND (j.status <> 'pending'
          OR row_number() OVER (PARTITION BY j.repeat OR j.status <> 'pending' ORDER BY j.id DESC) <= p_max) AS taken
        FROM judged j),
      claimed AS (
        UPDATE events SET status = CASE WHEN k.taken THEN 'processing' ELSE 'dropped' END,
          lease_owner = CASE WHEN k.taken THEN p_owner END, lease_until = CASE WHEN k.taken THEN p_until END
        FROM kept k WHERE events.id = k.id
        RETURNING events.*)
      SELECT * FROM claimed WHERE status = 'processing' ORDER BY id
    $f$;
  `,
};
