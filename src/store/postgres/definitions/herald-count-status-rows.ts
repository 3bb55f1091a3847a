import type { Definition } from './definition.js';

export const heraldCountStatusRows: Definition = {
  name: 'herald_count_status_rows',
  sql: `
    -- herald_count_status_rows of migration 22: every status a statement moved, in one upsert
    CREATE FUNCTION herald_count_status_rows() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        INSERT INTO store_counts (name, shard, n)
          SELECT TG_TABLE_NAME || ':' || r.status, pg_backend_pid(), count(*) FROM new_rows r WHERE r.status = ANY (TG_ARGV) GROUP BY r.status
        ON CONFLICT (name, shard) DO UPDATE SET n = store_counts.n + EXCLUDED.n;
      ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO store_counts (name, shard, n)
          SELECT TG_TABLE_NAME || ':' || r.status, pg_backend_pid(), -count(*) FROM old_rows r WHERE r.status = ANY (TG_ARGV) GROUP BY r.status
        ON CONFLICT (name, shard) DO UPDATE SET n = store_counts.n + EXCLUDED.n;
      ELSE
        INSERT INTO store_counts (name, shard, n)
          SELECT TG_TABLE_NAME || ':' || c.status, pg_backend_pid(), c.n
          FROM (SELECT d.status, sum(d.n) AS n
                FROM (SELECT r.status, 1 AS n FROM new_rows r UNION ALL SELECT r.status, -1 FROM old_rows r) d
                WHERE d.status = ANY (TG_ARGV) GROUP BY d.status) c
          WHERE c.n <> 0
        ON CONFLICT (name, shard) DO UPDATE SET n = store_counts.n + EXCLUDED.n;
      END IF;
      RETURN NULL;
    END $$;
  `,
};
