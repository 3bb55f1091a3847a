import type { Definition } from './definition.js';

export const heraldGovernedWaiting: Definition = {
  name: 'herald_governed_waiting',
  sql: `
    -- The claim asks this whenever it took fewer runs than it had room for, and a batch of
    -- completions when one of them claimed nothing. A statement prepared while the runs table
    -- is new and empty keeps a sequential scan as its plan as the table grows, and every call
    -- would read every run; the function's plan is made with sequential scans off, so it reads
    -- the partial index, a few pages whatever the table holds.
    -- (plpgsql: its plan is kept for the session, where a SQL function's is made at every call)
    CREATE FUNCTION herald_governed_waiting() RETURNS boolean LANGUAGE plpgsql STABLE
      SET search_path FROM CURRENT SET enable_seqscan = off SET enable_bitmapscan = off AS $$
    BEGIN
      RETURN EXISTS (SELECT 1 FROM runs WHERE concurrency IS NOT NULL AND status IN ('queued', 'running'));
    END $$;
  `,
};
