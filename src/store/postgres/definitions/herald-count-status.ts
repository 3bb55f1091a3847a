import type { Definition } from './definition.js';

export const heraldCountStatus: Definition = {
  name: 'herald_count_status',
  sql: `
    -- herald_count_status of migration 5: a row moving between two counted statuses is counted
    -- by one upsert of both, not two calls
    CREATE FUNCTION herald_count_status() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        IF NEW.status = ANY (TG_ARGV) THEN PERFORM herald_count(TG_TABLE_NAME || ':' || NEW.status, 1); END IF;
      ELSIF TG_OP = 'DELETE' THEN
        IF OLD.status = ANY (TG_ARGV) THEN PERFORM herald_count(TG_TABLE_NAME || ':' || OLD.status, -1); END IF;
      ELSIF OLD.status IS DISTINCT FROM NEW.status THEN
        INSERT INTO store_counts (name, shard, n)
          SELECT TG_TABLE_NAME || ':' || c.status, pg_backend_pid(), c.n
          FROM (VALUES (OLD.status, -1), (NEW.status, 1)) AS c(status, n) WHERE c.status = ANY (TG_ARGV)
        ON CONFLICT (name, shard) DO UPDATE SET n = store_counts.n + EXCLUDED.n;
      END IF;
      RETURN NULL;
    END $$;
  `,
};
