import type { Definition } from './definition.js';

export const heraldSessionTurnSummarised: Definition = {
  name: 'herald_session_turn_summarised',
  sql: `
    CREATE FUNCTION herald_session_turn_summarised() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
    BEGIN
      INSERT INTO session_summaries AS s (key, agent_id, messages, first_at, last_at)
        SELECT t.session_key,
          CASE WHEN t.session_key = 'main' THEN NULL
            ELSE (SELECT COALESCE(f.meta->>'agentId', (SELECT agent_id FROM runs WHERE id = f.run_id)) FROM added f WHERE f.id = t.first_id) END,
          t.messages, t.first_at, t.last_at
        FROM (SELECT session_key, COUNT(*) AS messages, MIN(created_at) AS first_at, MAX(created_at) AS last_at, MIN(id) AS first_id
              FROM added GROUP BY session_key) t
      ON CONFLICT (key) DO UPDATE SET messages = s.messages + EXCLUDED.messages,
        first_at = LEAST(s.first_at, EXCLUDED.first_at), last_at = GREATEST(s.last_at, EXCLUDED.last_at);
      RETURN NULL;
    END $$;
  `,
};
