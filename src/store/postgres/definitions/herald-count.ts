import type { Definition } from './definition.js';

export const heraldCount: Definition = {
  name: 'herald_count',
  sql: `
    -- A LANGUAGE sql function whose body is an INSERT is never inlined: every call from a
    -- trigger parsed and planned its upsert again. plpgsql keeps the plan for the connection.
    -- It runs under its caller's search_path (every caller is a function of this schema that sets it)
    CREATE FUNCTION herald_count(p_name TEXT, p_delta BIGINT) RETURNS void LANGUAGE plpgsql AS $f$
    BEGIN
      INSERT INTO store_counts (name, shard, n) VALUES (p_name, pg_backend_pid(), p_delta)
      ON CONFLICT (name, shard) DO UPDATE SET n = store_counts.n + EXCLUDED.n;
    END $f$;
  `,
};
