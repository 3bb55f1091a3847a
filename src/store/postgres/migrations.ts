/**
 * Versioned migrations of the PostgreSQL adapter, applied in order in one transaction under an
 * advisory lock (replicas starting together migrate once), recorded in `herald_migrations` of the deployment's schema. Never edit a migration that has
 * shipped: add the next one. The numbering is this adapter's own (SQLite has its own list).
 *
 * Times are BIGINT epoch milliseconds, as the port speaks them. Every guarantee SQLite got from
 * its single writer is explicit here: unique constraints, row locks, advisory locks.
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const migrations: Migration[] = [
  {
    version: 1,
    name: 'core: events, runs, session messages, state, deliveries, idempotency keys',
    sql: `
      CREATE TABLE events (
        id BIGSERIAL PRIMARY KEY,
        session TEXT NOT NULL,
        text TEXT NOT NULL,
        status TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        lease_owner TEXT,
        lease_until BIGINT
      );
      CREATE INDEX events_session_status ON events (session, status, id);
      CREATE INDEX events_session_id ON events (session, id);

      -- Adds a pending event unless it repeats the session's previous one, keeping at most
      -- p_max pending. The advisory lock serialises enqueues of one session across replicas
      -- (the duplicate check reads the newest row, which a concurrent insert would change);
      -- its key includes the schema so deployments sharing a database never wait on each other.
      CREATE FUNCTION herald_enqueue_event(p_session TEXT, p_text TEXT, p_max INT, p_now BIGINT)
      RETURNS SETOF events LANGUAGE plpgsql AS $$
      DECLARE
        prev events%ROWTYPE;
        added events%ROWTYPE;
      BEGIN
        PERFORM pg_advisory_xact_lock(hashtext('herald.events:' || current_schema() || ':' || p_session));
        SELECT * INTO prev FROM events WHERE session = p_session ORDER BY id DESC LIMIT 1;
        IF FOUND AND prev.text = p_text AND prev.status IN ('pending', 'processing') THEN
          RETURN;
        END IF;
        INSERT INTO events (session, text, status, created_at) VALUES (p_session, p_text, 'pending', p_now) RETURNING * INTO added;
        -- rows locked in id order (as every other writer of events locks them): no lock cycle
        UPDATE events SET status = 'dropped' WHERE id IN (
          SELECT d.id FROM events d
          WHERE d.session = p_session AND d.status = 'pending' AND d.id <=
            (SELECT e.id FROM events e WHERE e.session = p_session AND e.status = 'pending' ORDER BY e.id DESC LIMIT 1 OFFSET p_max)
          ORDER BY d.id FOR UPDATE);
        RETURN NEXT added;
      END $$;

      CREATE TABLE runs (
        seq BIGSERIAL NOT NULL,
        id TEXT PRIMARY KEY,
        status TEXT NOT NULL,
        agent_id TEXT NOT NULL,
        name TEXT NOT NULL,
        session_key TEXT NOT NULL,
        message TEXT NOT NULL,
        action JSONB NOT NULL,
        deliver BOOLEAN NOT NULL DEFAULT TRUE,
        reply TEXT,
        error TEXT,
        created_at BIGINT NOT NULL,
        started_at BIGINT,
        finished_at BIGINT,
        lease_owner TEXT,
        lease_until BIGINT
      );
      -- runs are claimed in insert order (seq), not by created_at: replicas' clocks differ
      CREATE INDEX runs_unfinished ON runs (seq) WHERE status IN ('queued', 'running');
      CREATE INDEX runs_session_unfinished ON runs (session_key, seq) WHERE status IN ('queued', 'running');
      CREATE INDEX runs_succeeded ON runs (finished_at) WHERE status = 'succeeded';

      CREATE TABLE session_messages (
        id BIGSERIAL PRIMARY KEY,
        session_key TEXT NOT NULL,
        role TEXT NOT NULL,
        content TEXT NOT NULL,
        run_id TEXT,
        meta JSONB,
        created_at BIGINT NOT NULL
      );
      CREATE INDEX session_messages_key ON session_messages (session_key, id);

      CREATE TABLE state (
        key TEXT PRIMARY KEY,
        value JSONB NOT NULL,
        updated_at BIGINT NOT NULL
      );

      CREATE TABLE deliveries (
        seq BIGSERIAL NOT NULL,
        id TEXT PRIMARY KEY,
        run_id TEXT,
        kind TEXT NOT NULL,
        channel TEXT,
        recipient TEXT,
        text TEXT NOT NULL,
        session_key TEXT NOT NULL,
        agent_id TEXT NOT NULL,
        status TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        parts_sent INTEGER NOT NULL DEFAULT 0,
        last_error TEXT,
        next_attempt_at BIGINT NOT NULL,
        lease_owner TEXT,
        lease_until BIGINT,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL,
        delivered_at BIGINT
      );
      -- one delivery per run, whichever replica finishes it: the constraint, not a check-then-insert
      CREATE UNIQUE INDEX deliveries_one_per_run ON deliveries (run_id) WHERE run_id IS NOT NULL;
      CREATE INDEX deliveries_due ON deliveries (status, next_attempt_at) WHERE status IN ('pending', 'sending');
      CREATE INDEX deliveries_created ON deliveries (created_at, seq);
      CREATE INDEX deliveries_status ON deliveries (status);

      CREATE TABLE idempotency_keys (
        scope TEXT NOT NULL,
        key TEXT NOT NULL,
        request_hash TEXT NOT NULL,
        status TEXT NOT NULL,
        run_id TEXT NOT NULL,
        response_status INTEGER,
        response_body TEXT,
        created_at BIGINT NOT NULL,
        locked_until BIGINT NOT NULL,
        expires_at BIGINT NOT NULL,
        PRIMARY KEY (scope, key)
      );
      CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);
    `,
  },
  {
    version: 2,
    name: 'knowledge (documents, chunks with a tsvector under GIN) and platform API keys',
    sql: `
      CREATE TABLE knowledge_documents (
        seq BIGSERIAL NOT NULL,
        id TEXT PRIMARY KEY,
        agent_id TEXT NOT NULL,
        filename TEXT NOT NULL,
        bytes BIGINT NOT NULL,
        mime_type TEXT NOT NULL,
        sha256 TEXT NOT NULL,
        status TEXT NOT NULL,
        chunk_count INTEGER NOT NULL,
        metadata JSONB,
        created_at BIGINT NOT NULL,
        UNIQUE (agent_id, sha256)
      );
      CREATE INDEX knowledge_documents_agent ON knowledge_documents (agent_id, created_at, seq);

      CREATE TABLE knowledge_chunks (
        seq_no BIGSERIAL NOT NULL,
        id TEXT PRIMARY KEY,
        document_id TEXT NOT NULL REFERENCES knowledge_documents (id) ON DELETE CASCADE,
        agent_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        content TEXT NOT NULL,
        -- english stemming, as SQLite's porter tokenizer: "walking" finds "walk"
        tsv TSVECTOR GENERATED ALWAYS AS (to_tsvector('english', content)) STORED
      );
      CREATE INDEX knowledge_chunks_document ON knowledge_chunks (document_id, seq);
      CREATE INDEX knowledge_chunks_search ON knowledge_chunks USING GIN (tsv);
      CREATE INDEX knowledge_chunks_agent ON knowledge_chunks (agent_id);

      CREATE TABLE api_keys (
        name TEXT PRIMARY KEY,
        key_hash TEXT NOT NULL UNIQUE,
        agents JSONB,
        created_at BIGINT NOT NULL
      );
    `,
  },
  {
    version: 3,
    name: 'operator: receipts of webhook requests, retained payloads, re-run links',
    sql: `
      CREATE TABLE receipts (
        id TEXT PRIMARY KEY,
        request_id TEXT NOT NULL,
        received_at BIGINT NOT NULL,
        method TEXT NOT NULL,
        path TEXT NOT NULL,
        mapping_id TEXT,
        status INTEGER NOT NULL,
        outcome TEXT NOT NULL,
        error_code TEXT,
        run_id TEXT,
        event_id BIGINT,
        idempotency_key TEXT,
        auth_method TEXT NOT NULL,
        signature TEXT,
        client_address TEXT,
        body_bytes INTEGER NOT NULL,
        latency_ms DOUBLE PRECISION NOT NULL,
        replay_of TEXT,
        retained_until BIGINT
      );
      CREATE INDEX receipts_received ON receipts (received_at, id);
      CREATE INDEX receipts_path ON receipts (path, received_at);
      CREATE INDEX receipts_mapping ON receipts (mapping_id, received_at);
      CREATE INDEX receipts_run ON receipts (run_id);
      CREATE INDEX receipts_replay ON receipts (replay_of) WHERE replay_of IS NOT NULL;

      CREATE TABLE retained_payloads (
        receipt_id TEXT PRIMARY KEY REFERENCES receipts (id) ON DELETE CASCADE,
        path TEXT NOT NULL,
        body BYTEA NOT NULL,
        bytes INTEGER NOT NULL,
        headers JSONB NOT NULL,
        query JSONB NOT NULL,
        created_at BIGINT NOT NULL,
        expires_at BIGINT NOT NULL
      );
      CREATE INDEX retained_payloads_path ON retained_payloads (path, created_at);
      CREATE INDEX retained_payloads_expiry ON retained_payloads (expires_at);
      CREATE INDEX retained_payloads_created ON retained_payloads (created_at, receipt_id);

      ALTER TABLE runs ADD COLUMN rerun_of TEXT;
      CREATE INDEX runs_created ON runs (created_at, id);
      CREATE INDEX runs_rerun_of ON runs (rerun_of) WHERE rerun_of IS NOT NULL;
      CREATE INDEX deliveries_created_id ON deliveries (created_at, id);
      CREATE INDEX events_created ON events (created_at, id);
    `,
  },
  {
    version: 4,
    name: 'runs: the model that answered (the primary or the fallback that took over)',
    sql: `
      ALTER TABLE runs ADD COLUMN model TEXT;
    `,
  },
  {
    version: 5,
    name: 'scale: counts kept by triggers (/metrics reads rows, not tables), waiting runs flagged (a claim reads ready runs only)',
    sql: `
      -- What /metrics reports, kept exact by triggers in the transactions that change the rows
      -- counted: a scrape sums a few rows instead of counting tables of millions, and every
      -- replica reads the same. Each backend adds its changes to a share of its own (shard: its
      -- pg_backend_pid), so concurrent writers never wait on one another for a counter row;
      -- shard 0 holds the total the scrape folds the shares into (postgres-probe.ts).
      -- The functions keep the migration's search_path: the triggers fire for any writer, also
      -- one whose connection names the tables by schema (psql, a script) rather than herald.
      CREATE TABLE store_counts (
        name TEXT NOT NULL,
        shard INTEGER NOT NULL,
        n BIGINT NOT NULL,
        PRIMARY KEY (name, shard)
      );
      INSERT INTO store_counts (name, shard, n)
        SELECT 'runs:' || status, 0, COUNT(*) FROM runs WHERE status IN ('queued', 'running') GROUP BY status
        UNION ALL SELECT 'events:' || status, 0, COUNT(*) FROM events WHERE status IN ('pending', 'dropped') GROUP BY status
        UNION ALL SELECT 'deliveries:' || status, 0, COUNT(*) FROM deliveries GROUP BY status
        UNION ALL SELECT 'knowledge:documents', 0, COUNT(*) FROM knowledge_documents
        UNION ALL SELECT 'knowledge:chunks', 0, COALESCE(SUM(chunk_count), 0) FROM knowledge_documents;

      CREATE FUNCTION herald_count(p_name TEXT, p_delta BIGINT) RETURNS void LANGUAGE sql SET search_path FROM CURRENT AS $$
        INSERT INTO store_counts (name, shard, n) VALUES (p_name, pg_backend_pid(), p_delta)
        ON CONFLICT (name, shard) DO UPDATE SET n = store_counts.n + EXCLUDED.n
      $$;

      -- the trigger's arguments: the statuses of the table that are counted (as <table>:<status>)
      CREATE FUNCTION herald_count_status() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          IF NEW.status = ANY (TG_ARGV) THEN PERFORM herald_count(TG_TABLE_NAME || ':' || NEW.status, 1); END IF;
        ELSIF TG_OP = 'DELETE' THEN
          IF OLD.status = ANY (TG_ARGV) THEN PERFORM herald_count(TG_TABLE_NAME || ':' || OLD.status, -1); END IF;
        ELSIF OLD.status IS DISTINCT FROM NEW.status THEN
          IF OLD.status = ANY (TG_ARGV) THEN PERFORM herald_count(TG_TABLE_NAME || ':' || OLD.status, -1); END IF;
          IF NEW.status = ANY (TG_ARGV) THEN PERFORM herald_count(TG_TABLE_NAME || ':' || NEW.status, 1); END IF;
        END IF;
        RETURN NULL;
      END $$;
      CREATE TRIGGER runs_counted AFTER INSERT OR DELETE OR UPDATE OF status ON runs
        FOR EACH ROW EXECUTE FUNCTION herald_count_status('queued', 'running');
      CREATE TRIGGER events_counted AFTER INSERT OR DELETE OR UPDATE OF status ON events
        FOR EACH ROW EXECUTE FUNCTION herald_count_status('pending', 'dropped');
      CREATE TRIGGER deliveries_counted AFTER INSERT OR DELETE OR UPDATE OF status ON deliveries
        FOR EACH ROW EXECUTE FUNCTION herald_count_status('pending', 'sending', 'delivered', 'failed', 'abandoned');

      -- knowledge: documents, and their chunks by the documents' chunk_count
      CREATE FUNCTION herald_count_knowledge() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          PERFORM herald_count('knowledge:documents', 1);
          PERFORM herald_count('knowledge:chunks', NEW.chunk_count);
        ELSIF TG_OP = 'DELETE' THEN
          PERFORM herald_count('knowledge:documents', -1);
          PERFORM herald_count('knowledge:chunks', -OLD.chunk_count);
        ELSIF OLD.chunk_count <> NEW.chunk_count THEN
          PERFORM herald_count('knowledge:chunks', NEW.chunk_count - OLD.chunk_count);
        END IF;
        RETURN NULL;
      END $$;
      CREATE TRIGGER knowledge_documents_counted AFTER INSERT OR DELETE OR UPDATE OF chunk_count ON knowledge_documents
        FOR EACH ROW EXECUTE FUNCTION herald_count_knowledge();

      -- A session's runs go one at a time, in order: every unfinished run but the oldest of its
      -- session waits. The claim used to find the ready ones by asking, of every unfinished run
      -- in seq order, whether an older one of its session was unfinished: each claim walked past
      -- every run waiting behind a busy session (the drain was quadratic). Now a run inserted
      -- behind another is flagged waiting, the end of the one ahead releases the next, and a
      -- claim reads ready runs only, from runs_ready. Both sides take the session's advisory lock
      -- (before reading the session's runs, in a fresh snapshot), so an insert and the end of
      -- the run ahead of it never both miss each other across replicas.
      ALTER TABLE runs ADD COLUMN waiting BOOLEAN NOT NULL DEFAULT false;
      UPDATE runs r SET waiting = true WHERE r.status IN ('queued', 'running')
        AND EXISTS (SELECT 1 FROM runs p WHERE p.session_key = r.session_key AND p.status IN ('queued', 'running') AND p.seq < r.seq);
      CREATE INDEX runs_ready ON runs (seq) WHERE NOT waiting AND status IN ('queued', 'running');

      CREATE FUNCTION herald_run_inserted() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
      BEGIN
        IF NEW.status IN ('queued', 'running') THEN
          PERFORM pg_advisory_xact_lock(hashtext('herald.runs:' || current_schema() || ':' || NEW.session_key));
          NEW.waiting := EXISTS (SELECT 1 FROM runs WHERE session_key = NEW.session_key AND status IN ('queued', 'running'));
        END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER runs_wait_behind BEFORE INSERT ON runs FOR EACH ROW EXECUTE FUNCTION herald_run_inserted();

      -- the oldest unfinished run left is released; one finished meanwhile (an operator's
      -- cancel, committed while this waited for its row) is passed over for the next
      CREATE FUNCTION herald_run_ended() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
      DECLARE
        next_id TEXT;
      BEGIN
        PERFORM pg_advisory_xact_lock(hashtext('herald.runs:' || current_schema() || ':' || OLD.session_key));
        LOOP
          SELECT id INTO next_id FROM runs WHERE session_key = OLD.session_key AND status IN ('queued', 'running') ORDER BY seq LIMIT 1;
          EXIT WHEN NOT FOUND;
          UPDATE runs SET waiting = false WHERE id = next_id AND status IN ('queued', 'running');
          EXIT WHEN FOUND;
        END LOOP;
        RETURN NULL;
      END $$;
      CREATE TRIGGER runs_release_next AFTER UPDATE OF status ON runs FOR EACH ROW
        WHEN (OLD.status IN ('queued', 'running') AND NEW.status NOT IN ('queued', 'running') AND NOT OLD.waiting)
        EXECUTE FUNCTION herald_run_ended();
    `,
  },
  {
    version: 6,
    name: 'knowledge: chunks keep their index form (segmented, stemmed terms), searched with the simple configuration; an optional embedding',
    sql: `
      -- knowledge/ segments (CJK) and stems (English) the text itself, so both adapters index the
      -- same terms: the tsvector is now built from them with 'simple'. Chunks stored before have
      -- terms NULL (an empty tsvector) and are indexed again at start (KnowledgeIndex.upgrade).
      ALTER TABLE knowledge_chunks ADD COLUMN terms TEXT;
      DROP INDEX knowledge_chunks_search;
      ALTER TABLE knowledge_chunks DROP COLUMN tsv;
      ALTER TABLE knowledge_chunks ADD COLUMN tsv TSVECTOR GENERATED ALWAYS AS (to_tsvector('simple', coalesce(terms, ''))) STORED;
      CREATE INDEX knowledge_chunks_search ON knowledge_chunks USING GIN (tsv);
      CREATE INDEX knowledge_chunks_unindexed ON knowledge_chunks (seq_no) WHERE terms IS NULL;
      -- float32 vectors from platform.knowledge.embeddings, and the model that made them
      ALTER TABLE knowledge_chunks ADD COLUMN embedding BYTEA;
      ALTER TABLE knowledge_documents ADD COLUMN embedding_model TEXT;
    `,
  },
  {
    version: 7,
    name: 'operator: the admin lists filtered without a scan (runs by mapping, session and status; events; receipts by status; deliveries by channel; session summaries)',
    sql: `
      -- each admin list filter walks one of these newest first, (filter, time, id), and stops after a page.
      -- runs?mapping= scanned the runs and read every receipt of the mapping; the expression is the one browse-filters.ts writes
      CREATE INDEX runs_mapping ON runs ((action->'source'->>'mappingId'), created_at, id);
      CREATE INDEX runs_session ON runs (session_key, created_at, id);
      CREATE INDEX runs_status ON runs (status, created_at, id);
      CREATE INDEX receipts_status ON receipts (status, received_at, id);
      CREATE INDEX events_session_created ON events (session, created_at, id);
      CREATE INDEX deliveries_channel ON deliveries (channel, created_at, id);

      -- the sessions list read every message (GROUP BY session_key) for each page: each session's
      -- summary is kept as its messages are written. agent_id: its first message's agent (a chat
      -- names it in meta, a hook run's is its run's); NULL: none named, or the main session, both
      -- the default agent's (configuration decides which, so it is resolved when read)
      CREATE TABLE session_summaries (
        key TEXT PRIMARY KEY,
        agent_id TEXT,
        messages INTEGER NOT NULL,
        first_at BIGINT NOT NULL,
        last_at BIGINT NOT NULL
      );
      INSERT INTO session_summaries (key, agent_id, messages, first_at, last_at)
        SELECT s.key, CASE WHEN s.key = 'main' THEN NULL ELSE COALESCE(m.meta->>'agentId', r.agent_id) END, s.messages, s.first_at, s.last_at
        FROM (SELECT session_key AS key, COUNT(*) AS messages, MIN(created_at) AS first_at, MAX(created_at) AS last_at, MIN(id) AS first_id
              FROM session_messages GROUP BY session_key) s
        JOIN session_messages m ON m.id = s.first_id
        LEFT JOIN runs r ON r.id = m.run_id;
      CREATE INDEX session_summaries_last ON session_summaries (last_at, key);
      CREATE INDEX session_summaries_agent ON session_summaries (agent_id, last_at, key);
      CREATE FUNCTION herald_session_summarised() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
      BEGIN
        INSERT INTO session_summaries AS s (key, agent_id, messages, first_at, last_at)
        VALUES (
          NEW.session_key,
          CASE WHEN NEW.session_key = 'main' THEN NULL ELSE COALESCE(NEW.meta->>'agentId', (SELECT agent_id FROM runs WHERE id = NEW.run_id)) END,
          1, NEW.created_at, NEW.created_at
        )
        ON CONFLICT (key) DO UPDATE SET messages = s.messages + 1, first_at = LEAST(s.first_at, EXCLUDED.first_at), last_at = GREATEST(s.last_at, EXCLUDED.last_at);
        RETURN NULL;
      END $$;
      CREATE TRIGGER session_messages_summarised AFTER INSERT ON session_messages FOR EACH ROW EXECUTE FUNCTION herald_session_summarised();
    `,
  },
  {
    version: 8,
    name: 'operator: session summaries keep one index',
    sql: `
      -- every message moves its session's last_at, and the index by agent more than doubled what the
      -- trigger costs a turn; ?agent= walks session_summaries_last and reads each summary's agent
      DROP INDEX session_summaries_agent;
    `,
  },
  {
    version: 9,
    name: 'runs: runs_unfinished dropped (runs_ready and runs_status answer what it did; every run wrote it three times)',
    sql: `
      -- the claim reads runs_ready, a session's unfinished runs come from runs_session_unfinished,
      -- and counting the unfinished runs by status reads runs_status; nothing needed runs_unfinished
      DROP INDEX runs_unfinished;
    `,
  },
  {
    version: 10,
    name: 'runs: a completion in one statement (status, transcript and summary event in one function call)',
    sql: `
      -- A run's completion was three round trips inside the group's transaction (the UPDATE, the
      -- transcript's INSERT, the summary's enqueue): one call now, same statements, same order.
      -- Refused (false, nothing written) unless the run is unfinished and not waiting behind an
      -- older one of its session. The transcript comes as parallel arrays (text, as appendMessages
      -- binds it: no JSON round of the contents), inserted in the order given: ids ascend with it.
      CREATE FUNCTION herald_complete_run(
        p_id TEXT, p_status TEXT, p_reply TEXT, p_error TEXT, p_finished_at BIGINT, p_model TEXT,
        p_roles TEXT[], p_contents TEXT[], p_run_ids TEXT[], p_metas JSONB[], p_created_at BIGINT[],
        p_summary_session TEXT, p_summary_text TEXT, p_max_pending INT, p_now BIGINT)
      RETURNS boolean LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
      DECLARE
        v_session TEXT;
      BEGIN
        UPDATE runs SET status = p_status, reply = p_reply, error = p_error, finished_at = p_finished_at, model = p_model,
          lease_owner = NULL, lease_until = NULL
        WHERE id = p_id AND status IN ('queued', 'running') AND NOT waiting
        RETURNING session_key INTO v_session;
        IF NOT FOUND THEN
          RETURN false;
        END IF;
        INSERT INTO session_messages (session_key, role, content, run_id, meta, created_at)
          SELECT v_session, m.role, m.content, m.run_id, m.meta, m.created_at
          FROM unnest(p_roles, p_contents, p_run_ids, p_metas, p_created_at) WITH ORDINALITY AS m(role, content, run_id, meta, created_at, n)
          ORDER BY m.n;
        PERFORM herald_enqueue_event(p_summary_session, p_summary_text, p_max_pending, p_now);
        RETURN true;
      END $$;
    `,
  },
  {
    version: 11,
    name: 'operator: session summaries kept once per statement (a turn), not once per message',
    sql: `
      -- The row trigger upserted a session's summary for each message: twice for a run's turn (one
      -- INSERT of its two messages), each rewriting the row and its session_summaries_last entry.
      -- Once per statement now, from the rows it added, by the same rule: the count and span of
      -- the session's rows; on insert, the agent of its first row (by id, which follows the VALUES
      -- or the ORDER BY of the INSERT): NULL for main, else its meta's agentId or its run's agent.
      -- Every writer of session_messages keeps it, herald_complete_run's INSERT included.
      DROP TRIGGER session_messages_summarised ON session_messages;
      DROP FUNCTION herald_session_summarised();
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
      CREATE TRIGGER session_messages_summarised AFTER INSERT ON session_messages
        REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION herald_session_turn_summarised();
    `,
  },
  {
    version: 12,
    name: 'alerts: every incident an alert rule raised, one open per incident key',
    sql: `
      CREATE TABLE alerts (
        id TEXT PRIMARY KEY,
        condition TEXT NOT NULL,
        incident_key TEXT NOT NULL,
        cooldown_key TEXT NOT NULL,
        subject TEXT NOT NULL,
        summary TEXT NOT NULL,
        status TEXT NOT NULL,
        notified BOOLEAN NOT NULL,
        raised_at BIGINT NOT NULL,
        resolved_at BIGINT,
        raised_queued_at BIGINT,
        resolved_queued_at BIGINT
      );
      -- the store decides who alerts: one open incident per key, whichever replica raises it first
      CREATE UNIQUE INDEX alerts_open_incident ON alerts (incident_key) WHERE status = 'open';
      CREATE INDEX alerts_cooldown ON alerts (cooldown_key, raised_at) WHERE notified;
      CREATE INDEX alerts_raised ON alerts (raised_at, id);
    `,
  },
  {
    version: 13,
    name: 'deliveries: a fallback delivery names the one it replaces; an operator retry is dated (delivery policy)',
    sql: `
      ALTER TABLE deliveries ADD COLUMN fallback_of TEXT, ADD COLUMN retried_at BIGINT;
      -- one reply per run is its first delivery: the fallbacks of that run are rows of their own
      DROP INDEX deliveries_one_per_run;
      CREATE UNIQUE INDEX deliveries_one_per_run ON deliveries (run_id) WHERE run_id IS NOT NULL AND fallback_of IS NULL;
      -- at most one fallback per failed delivery, whichever replica records its failure
      CREATE UNIQUE INDEX deliveries_fallback_of ON deliveries (fallback_of) WHERE fallback_of IS NOT NULL;
    `,
  },
  {
    version: 14,
    name: "traffic: a mapping's runs held back by its concurrency, rate and coalescing window",
    sql: `
      -- set only on the runs of a governed mapping (admitted by RunsRepo.admit); NULL elsewhere, so
      -- the partial indexes below hold governed runs only and cost an ungoverned deployment nothing.
      -- not_before: claimable from then on (a rate's slot, a coalescing window's end); concurrency:
      -- the mapping's limit when it was admitted; waited_for: why it was held back; rate_slot: when
      -- the rate counts it as started; coalesce_key and coalesced: its key and the events' messages
      ALTER TABLE runs ADD COLUMN not_before BIGINT, ADD COLUMN concurrency INT, ADD COLUMN waited_for TEXT,
        ADD COLUMN rate_slot BIGINT, ADD COLUMN coalesce_key TEXT, ADD COLUMN coalesced JSONB;
      CREATE INDEX runs_rate ON runs ((action->'source'->>'mappingId'), rate_slot) WHERE rate_slot IS NOT NULL;
      CREATE INDEX runs_coalescing ON runs ((action->'source'->>'mappingId'), coalesce_key) WHERE coalesce_key IS NOT NULL AND status = 'queued';
      CREATE INDEX runs_governed ON runs ((action->'source'->>'mappingId'), seq) WHERE concurrency IS NOT NULL AND status IN ('queued', 'running');
    `,
  },
  {
    version: 15,
    name: 'events: the summary of a run over outside content is flagged untrusted (the summary text stays as OpenClaw words it)',
    sql: `
      -- true: the run read outside content without allowUnsafeExternalContent; the heartbeat reads it as data
      ALTER TABLE events ADD COLUMN untrusted BOOLEAN NOT NULL DEFAULT FALSE;

      -- herald_enqueue_event of migration 1, storing the flag (false unless given)
      DROP FUNCTION herald_enqueue_event(TEXT, TEXT, INT, BIGINT);
      CREATE FUNCTION herald_enqueue_event(p_session TEXT, p_text TEXT, p_max INT, p_now BIGINT, p_untrusted BOOLEAN DEFAULT FALSE)
      RETURNS SETOF events LANGUAGE plpgsql AS $$
      DECLARE
        prev events%ROWTYPE;
        added events%ROWTYPE;
      BEGIN
        PERFORM pg_advisory_xact_lock(hashtext('herald.events:' || current_schema() || ':' || p_session));
        SELECT * INTO prev FROM events WHERE session = p_session ORDER BY id DESC LIMIT 1;
        IF FOUND AND prev.text = p_text AND prev.status IN ('pending', 'processing') THEN
          RETURN;
        END IF;
        INSERT INTO events (session, text, status, created_at, untrusted) VALUES (p_session, p_text, 'pending', p_now, p_untrusted) RETURNING * INTO added;
        -- rows locked in id order (as every other writer of events locks them): no lock cycle
        UPDATE events SET status = 'dropped' WHERE id IN (
          SELECT d.id FROM events d
          WHERE d.session = p_session AND d.status = 'pending' AND d.id <=
            (SELECT e.id FROM events e WHERE e.session = p_session AND e.status = 'pending' ORDER BY e.id DESC LIMIT 1 OFFSET p_max)
          ORDER BY d.id FOR UPDATE);
        RETURN NEXT added;
      END $$;

      -- herald_complete_run of migration 10, passing the summary's flag on
      DROP FUNCTION herald_complete_run(TEXT, TEXT, TEXT, TEXT, BIGINT, TEXT, TEXT[], TEXT[], TEXT[], JSONB[], BIGINT[], TEXT, TEXT, INT, BIGINT);
      CREATE FUNCTION herald_complete_run(
        p_id TEXT, p_status TEXT, p_reply TEXT, p_error TEXT, p_finished_at BIGINT, p_model TEXT,
        p_roles TEXT[], p_contents TEXT[], p_run_ids TEXT[], p_metas JSONB[], p_created_at BIGINT[],
        p_summary_session TEXT, p_summary_text TEXT, p_max_pending INT, p_now BIGINT, p_summary_untrusted BOOLEAN)
      RETURNS boolean LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
      DECLARE
        v_session TEXT;
      BEGIN
        UPDATE runs SET status = p_status, reply = p_reply, error = p_error, finished_at = p_finished_at, model = p_model,
          lease_owner = NULL, lease_until = NULL
        WHERE id = p_id AND status IN ('queued', 'running') AND NOT waiting
        RETURNING session_key INTO v_session;
        IF NOT FOUND THEN
          RETURN false;
        END IF;
        INSERT INTO session_messages (session_key, role, content, run_id, meta, created_at)
          SELECT v_session, m.role, m.content, m.run_id, m.meta, m.created_at
          FROM unnest(p_roles, p_contents, p_run_ids, p_metas, p_created_at) WITH ORDINALITY AS m(role, content, run_id, meta, created_at, n)
          ORDER BY m.n;
        PERFORM herald_enqueue_event(p_summary_session, p_summary_text, p_max_pending, p_now, p_summary_untrusted);
        RETURN true;
      END $$;
    `,
  },
  {
    version: 16,
    name: "files and vector stores: OpenAI's knowledge API over the knowledge tables",
    sql: `
      -- a file's bytes are kept for GET /v1/files/{id}/content and for adding it to vector stores
      CREATE TABLE files (
        id TEXT PRIMARY KEY,
        filename TEXT NOT NULL,
        purpose TEXT NOT NULL,
        bytes BIGINT NOT NULL,
        content BYTEA NOT NULL,
        agents JSONB,
        created_at BIGINT NOT NULL
      );
      CREATE INDEX files_created ON files (created_at, id);
      CREATE TABLE vector_stores (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        metadata JSONB,
        agents JSONB,
        created_at BIGINT NOT NULL
      );
      CREATE INDEX vector_stores_created ON vector_stores (created_at, id);
      -- a file's chunks are a knowledge document under the vector store's owner key (document_id once completed)
      CREATE TABLE vector_store_files (
        vector_store_id TEXT NOT NULL REFERENCES vector_stores (id) ON DELETE CASCADE,
        file_id TEXT NOT NULL,
        status TEXT NOT NULL,
        last_error JSONB,
        document_id TEXT,
        bytes BIGINT NOT NULL,
        created_at BIGINT NOT NULL,
        PRIMARY KEY (vector_store_id, file_id)
      );
      CREATE INDEX vector_store_files_in_progress ON vector_store_files (created_at) WHERE status = 'in_progress';
    `,
  },
  {
    version: 17,
    name: 'knowledge: every chunk indexed again (Korean as syllable pairs, codes such as ERR-4012 whole and in parts)',
    sql: `
      -- the index form knowledge/ makes changed: every chunk is made unindexed (an empty tsvector),
      -- and indexed again at start (KnowledgeIndex.upgrade)
      UPDATE knowledge_chunks SET terms = NULL WHERE terms IS NOT NULL;
    `,
  },
  {
    version: 18,
    name: 'usage: the tokens of every model call, by key, agent, mapping and model',
    sql: `
      CREATE TABLE usage (
        id BIGSERIAL PRIMARY KEY,
        at BIGINT NOT NULL,
        source TEXT NOT NULL,
        model TEXT NOT NULL,
        key_name TEXT,
        agent_id TEXT,
        mapping_id TEXT,
        prompt_tokens BIGINT NOT NULL,
        completion_tokens BIGINT NOT NULL,
        total_tokens BIGINT NOT NULL,
        estimated BOOLEAN NOT NULL,
        cost DOUBLE PRECISION NOT NULL
      );
      -- a budget sums one key's or agent's rows since the start of its day or month
      CREATE INDEX usage_key ON usage (key_name, at) WHERE key_name IS NOT NULL;
      CREATE INDEX usage_agent ON usage (agent_id, at) WHERE agent_id IS NOT NULL;
      CREATE INDEX usage_at ON usage (at);
    `,
  },
  {
    version: 19,
    name: "events: the wakes of one turn enqueued by one call (one hold of the session's lock, one overflow drop)",
    sql: `
      -- herald_enqueue_event for several texts at once, with the same outcome as calling it for
      -- each in the order given: a text repeating the event before it (the session's newest, or
      -- the one inserted just before) while that one is pending or processing is skipped, ids
      -- ascend with the order, and the pending ones past the newest p_max are dropped, once after
      -- the inserts (only the newest row decides a skip, and with p_max of 1 or more a drop never
      -- reaches it; below that each text goes through herald_enqueue_event). Returns the ordinal
      -- (from 1) and id of each text inserted.
      CREATE FUNCTION herald_enqueue_events(p_session TEXT, p_texts TEXT[], p_max INT, p_now BIGINT)
      RETURNS TABLE (n INT, id BIGINT) LANGUAGE plpgsql AS $$
      DECLARE
        prev_text TEXT;
        prev_live BOOLEAN;
      BEGIN
        IF p_max < 1 THEN
          FOR i IN 1 .. COALESCE(array_length(p_texts, 1), 0) LOOP
            RETURN QUERY SELECT i, e.id FROM herald_enqueue_event(p_session, p_texts[i], p_max, p_now) e;
          END LOOP;
          RETURN;
        END IF;
        PERFORM pg_advisory_xact_lock(hashtext('herald.events:' || current_schema() || ':' || p_session));
        SELECT e.text, e.status IN ('pending', 'processing') INTO prev_text, prev_live
          FROM events e WHERE e.session = p_session ORDER BY e.id DESC LIMIT 1;
        RETURN QUERY
          WITH input AS (
            SELECT t.text, t.n::int AS n, lag(t.text) OVER (ORDER BY t.n) AS before
            FROM unnest(p_texts) WITH ORDINALITY AS t(text, n)),
          kept AS (
            SELECT i.text, i.n FROM input i
            WHERE NOT CASE WHEN i.n = 1 THEN COALESCE(prev_live AND prev_text = i.text, false) ELSE i.before = i.text END),
          added AS (
            INSERT INTO events (session, text, status, created_at) SELECT p_session, k.text, 'pending', p_now FROM kept k ORDER BY k.n
            RETURNING events.id)
          SELECT k.n, a.id
          FROM (SELECT kept.n, row_number() OVER (ORDER BY kept.n) AS r FROM kept) k
          JOIN (SELECT added.id, row_number() OVER (ORDER BY added.id) AS r FROM added) a ON a.r = k.r;
        -- rows locked in id order (as every other writer of events locks them): no lock cycle
        UPDATE events SET status = 'dropped' WHERE events.id IN (
          SELECT d.id FROM events d
          WHERE d.session = p_session AND d.status = 'pending' AND d.id <=
            (SELECT e.id FROM events e WHERE e.session = p_session AND e.status = 'pending' ORDER BY e.id DESC LIMIT 1 OFFSET p_max)
          ORDER BY d.id FOR UPDATE);
      END $$;
    `,
  },
  {
    version: 20,
    name: "runs: a completion and the claim after it in one call, the summary event last (the main session's lock held for the commit only)",
    sql: `
      -- herald_complete_run (migration 15), then the claim of up to p_limit ready runs (RunsRepo's
      -- CLAIM: it sees the run the completion made ready), then the summary event: its enqueue
      -- takes the main session's lock, which every completion and wake of every replica waits on,
      -- so it comes last and is held for the commit alone, not across a claim's round trip too.
      -- Rows: the runs claimed, each with finished true, its seq and whether a run waits behind it;
      -- one row of NULLs but finished when none was claimed; one row, finished false, when the
      -- run was refused (nothing written, nothing claimed).
      CREATE FUNCTION herald_complete_run_and_claim(
        p_id TEXT, p_status TEXT, p_reply TEXT, p_error TEXT, p_finished_at BIGINT, p_model TEXT,
        p_roles TEXT[], p_contents TEXT[], p_run_ids TEXT[], p_metas JSONB[], p_created_at BIGINT[],
        p_summary_session TEXT, p_summary_text TEXT, p_max_pending INT, p_now BIGINT, p_summary_untrusted BOOLEAN,
        p_owner TEXT, p_claim_now BIGINT, p_until BIGINT, p_limit INT)
      RETURNS TABLE (finished BOOLEAN, id TEXT, status TEXT, agent_id TEXT, name TEXT, session_key TEXT, message TEXT, action JSONB,
        reply TEXT, error TEXT, created_at BIGINT, started_at BIGINT, finished_at BIGINT, rerun_of TEXT, model TEXT, not_before BIGINT,
        waited_for TEXT, coalesced JSONB, seq BIGINT, behind BOOLEAN)
      LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
      #variable_conflict use_column
      DECLARE
        v_session TEXT;
        v_claimed INT;
      BEGIN
        UPDATE runs SET status = p_status, reply = p_reply, error = p_error, finished_at = p_finished_at, model = p_model,
          lease_owner = NULL, lease_until = NULL
        WHERE runs.id = p_id AND runs.status IN ('queued', 'running') AND NOT runs.waiting
        RETURNING runs.session_key INTO v_session;
        IF NOT FOUND THEN
          finished := false;
          RETURN NEXT;
          RETURN;
        END IF;
        INSERT INTO session_messages (session_key, role, content, run_id, meta, created_at)
          SELECT v_session, m.role, m.content, m.run_id, m.meta, m.created_at
          FROM unnest(p_roles, p_contents, p_run_ids, p_metas, p_created_at) WITH ORDINALITY AS m(role, content, run_id, meta, created_at, n)
          ORDER BY m.n;
        RETURN QUERY
          WITH candidates AS (
            SELECT r.id FROM runs r
            WHERE NOT r.waiting AND r.status IN ('queued', 'running') AND (r.status = 'queued' OR r.lease_until IS NULL OR r.lease_until < p_claim_now)
              AND r.concurrency IS NULL AND (r.not_before IS NULL OR r.not_before <= p_claim_now)
            ORDER BY r.seq LIMIT p_limit
            FOR UPDATE SKIP LOCKED)
          UPDATE runs SET status = 'running', started_at = p_claim_now, lease_owner = p_owner, lease_until = p_until
          FROM candidates WHERE runs.id = candidates.id
          RETURNING true, runs.id, runs.status, runs.agent_id, runs.name, runs.session_key, runs.message, runs.action, runs.reply, runs.error,
            runs.created_at, runs.started_at, runs.finished_at, runs.rerun_of, runs.model, runs.not_before, runs.waited_for, runs.coalesced, runs.seq,
            EXISTS (SELECT 1 FROM runs b WHERE b.session_key = runs.session_key AND b.status IN ('queued', 'running') AND b.seq > runs.seq);
        GET DIAGNOSTICS v_claimed = ROW_COUNT;
        IF v_claimed = 0 THEN
          finished := true;
          RETURN NEXT;
        END IF;
        PERFORM herald_enqueue_event(p_summary_session, p_summary_text, p_max_pending, p_now, p_summary_untrusted);
      END $$;
    `,
  },
  {
    version: 21,
    name: 'runs: the claim walks runs_ready in seq order whatever the statistics say (one function, which the completion calls too)',
    sql: `
      -- The claim's plan followed the table's statistics, which lag a backlog: taken while few runs
      -- were unfinished, they make a backlog of thousands look like one row, and the planner read
      -- every ready run (a bitmap scan) and sorted them all to take the first: each claim cost what
      -- the backlog holds, and the drain slowed as it grew. The only plan that stops after p_limit
      -- is runs_ready's in seq order, so the function's settings leave the planner no other.
      -- Rows: the runs claimed, each with its seq and whether a run waits behind it.
      CREATE FUNCTION herald_claim_runs(p_owner TEXT, p_now BIGINT, p_until BIGINT, p_limit INT)
      RETURNS TABLE (id TEXT, status TEXT, agent_id TEXT, name TEXT, session_key TEXT, message TEXT, action JSONB,
        reply TEXT, error TEXT, created_at BIGINT, started_at BIGINT, finished_at BIGINT, rerun_of TEXT, model TEXT, not_before BIGINT,
        waited_for TEXT, coalesced JSONB, seq BIGINT, behind BOOLEAN)
      LANGUAGE plpgsql SET search_path FROM CURRENT SET enable_bitmapscan = off SET enable_seqscan = off SET enable_sort = off AS $$
      #variable_conflict use_column
      BEGIN
        RETURN QUERY
          WITH candidates AS (
            SELECT r.id FROM runs r
            WHERE NOT r.waiting AND r.status IN ('queued', 'running') AND (r.status = 'queued' OR r.lease_until IS NULL OR r.lease_until < p_now)
              AND r.concurrency IS NULL AND (r.not_before IS NULL OR r.not_before <= p_now)
            ORDER BY r.seq LIMIT p_limit
            FOR UPDATE SKIP LOCKED)
          UPDATE runs SET status = 'running', started_at = p_now, lease_owner = p_owner, lease_until = p_until
          FROM candidates WHERE runs.id = candidates.id
          RETURNING runs.id, runs.status, runs.agent_id, runs.name, runs.session_key, runs.message, runs.action, runs.reply, runs.error,
            runs.created_at, runs.started_at, runs.finished_at, runs.rerun_of, runs.model, runs.not_before, runs.waited_for, runs.coalesced, runs.seq,
            EXISTS (SELECT 1 FROM runs b WHERE b.session_key = runs.session_key AND b.status IN ('queued', 'running') AND b.seq > runs.seq);
      END $$;

      -- herald_complete_run_and_claim of migration 20, its copy of the claim replaced by the function
      CREATE OR REPLACE FUNCTION herald_complete_run_and_claim(
        p_id TEXT, p_status TEXT, p_reply TEXT, p_error TEXT, p_finished_at BIGINT, p_model TEXT,
        p_roles TEXT[], p_contents TEXT[], p_run_ids TEXT[], p_metas JSONB[], p_created_at BIGINT[],
        p_summary_session TEXT, p_summary_text TEXT, p_max_pending INT, p_now BIGINT, p_summary_untrusted BOOLEAN,
        p_owner TEXT, p_claim_now BIGINT, p_until BIGINT, p_limit INT)
      RETURNS TABLE (finished BOOLEAN, id TEXT, status TEXT, agent_id TEXT, name TEXT, session_key TEXT, message TEXT, action JSONB,
        reply TEXT, error TEXT, created_at BIGINT, started_at BIGINT, finished_at BIGINT, rerun_of TEXT, model TEXT, not_before BIGINT,
        waited_for TEXT, coalesced JSONB, seq BIGINT, behind BOOLEAN)
      LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
      #variable_conflict use_column
      DECLARE
        v_session TEXT;
        v_claimed INT;
      BEGIN
        UPDATE runs SET status = p_status, reply = p_reply, error = p_error, finished_at = p_finished_at, model = p_model,
          lease_owner = NULL, lease_until = NULL
        WHERE runs.id = p_id AND runs.status IN ('queued', 'running') AND NOT runs.waiting
        RETURNING runs.session_key INTO v_session;
        IF NOT FOUND THEN
          finished := false;
          RETURN NEXT;
          RETURN;
        END IF;
        INSERT INTO session_messages (session_key, role, content, run_id, meta, created_at)
          SELECT v_session, m.role, m.content, m.run_id, m.meta, m.created_at
          FROM unnest(p_roles, p_contents, p_run_ids, p_metas, p_created_at) WITH ORDINALITY AS m(role, content, run_id, meta, created_at, n)
          ORDER BY m.n;
        RETURN QUERY SELECT true, c.* FROM herald_claim_runs(p_owner, p_claim_now, p_until, p_limit) c;
        GET DIAGNOSTICS v_claimed = ROW_COUNT;
        IF v_claimed = 0 THEN
          finished := true;
          RETURN NEXT;
        END IF;
        PERFORM herald_enqueue_event(p_summary_session, p_summary_text, p_max_pending, p_now, p_summary_untrusted);
      END $$;
    `,
  },
  {
    version: 22,
    name: 'events: counted once per statement (transition tables), not once per row',
    sql: `
      -- the counting trigger of migration 5 called herald_count per row: a turn's wakes (one call of
      -- herald_enqueue_events) upserted the same store_counts row once per event inserted and twice
      -- per event its overflow drop marked. Per statement, each status's rows are summed first.
      -- An update nets the rows after it against the rows before it, status by status (a statement
      -- that leaves every status as it was counts nothing); transition tables take one event per trigger.
      CREATE FUNCTION herald_count_status_rows() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          PERFORM herald_count(TG_TABLE_NAME || ':' || c.status, c.n)
            FROM (SELECT r.status, count(*) AS n FROM new_rows r WHERE r.status = ANY (TG_ARGV) GROUP BY r.status) c;
        ELSIF TG_OP = 'DELETE' THEN
          PERFORM herald_count(TG_TABLE_NAME || ':' || c.status, -c.n)
            FROM (SELECT r.status, count(*) AS n FROM old_rows r WHERE r.status = ANY (TG_ARGV) GROUP BY r.status) c;
        ELSE
          PERFORM herald_count(TG_TABLE_NAME || ':' || c.status, c.n)
            FROM (SELECT d.status, sum(d.n) AS n
                  FROM (SELECT r.status, 1 AS n FROM new_rows r UNION ALL SELECT r.status, -1 FROM old_rows r) d
                  WHERE d.status = ANY (TG_ARGV) GROUP BY d.status) c
            WHERE c.n <> 0;
        END IF;
        RETURN NULL;
      END $$;
      DROP TRIGGER events_counted ON events;
      CREATE TRIGGER events_counted_insert AFTER INSERT ON events REFERENCING NEW TABLE AS new_rows
        FOR EACH STATEMENT EXECUTE FUNCTION herald_count_status_rows('pending', 'dropped');
      CREATE TRIGGER events_counted_update AFTER UPDATE ON events REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
        FOR EACH STATEMENT EXECUTE FUNCTION herald_count_status_rows('pending', 'dropped');
      CREATE TRIGGER events_counted_delete AFTER DELETE ON events REFERENCING OLD TABLE AS old_rows
        FOR EACH STATEMENT EXECUTE FUNCTION herald_count_status_rows('pending', 'dropped');
    `,
  },
  {
    version: 23,
    name: "events: enqueued without the main session's lock (replicas' commits overlap); the heartbeat's claim keeps the queue's rules; the open events indexed apart",
    sql: `
      -- Every enqueue took the main session's advisory lock and held it to its commit, through the
      -- WAL flush: two replicas' batches took turns on it and their flushes never overlapped. The
      -- enqueue now takes no lock: the skip of a repeat is decided against the newest committed
      -- row, and the overflow drop skips rows another transaction holds (an enqueue's drop or a
      -- claim taking them), so no writer waits on another. Writers that race (two replicas, or a
      -- wake and a run's summary) may each miss the other's uncommitted rows: a repeat, or more
      -- than p_max pending, can then get in until the next enqueue's drop or the claim, and
      -- herald_claim_events applies both rules to what it takes, so the heartbeat never sees them.
      -- One writer after another (what one replica's batch does) gets the outcome it got before.
      -- The open events alone (at most the cap pending, and what a heartbeat holds), which the
      -- drop, the claim and the pending count read. In events_session_status an event dropped or
      -- done leaves its old entry under 'pending' or 'processing' (a status change is never a HOT
      -- update) until a vacuum: the drop's search for the newest p_max pending walked past every
      -- event dropped since, reading each one's row, so an enqueue cost what the history held.
      -- Here the new entries go to the end of a small index whose dead ones the scans mark and
      -- page splits clear, so it stays a page or two whatever the history.
      CREATE INDEX events_open ON events (session, status, id) WHERE status IN ('pending', 'processing');

      -- plpgsql, not sql: its plan is kept for the connection, not made again at every call
      CREATE FUNCTION herald_drop_overflow(p_session TEXT, p_max INT) RETURNS void LANGUAGE plpgsql AS $f$
      BEGIN
        -- rows locked in id order (as every other writer of events locks them); SKIP LOCKED: a row
        -- held by another drop is being dropped, one held by a claim is being taken
        UPDATE events SET status = 'dropped' WHERE events.id IN (
          SELECT d.id FROM events d
          WHERE d.session = p_session AND d.status = 'pending' AND d.id <=
            (SELECT e.id FROM events e WHERE e.session = p_session AND e.status = 'pending' ORDER BY e.id DESC LIMIT 1 OFFSET p_max)
          ORDER BY d.id FOR UPDATE SKIP LOCKED);
      END $f$;

      CREATE OR REPLACE FUNCTION herald_enqueue_event(p_session TEXT, p_text TEXT, p_max INT, p_now BIGINT, p_untrusted BOOLEAN DEFAULT FALSE)
      RETURNS SETOF events LANGUAGE plpgsql AS $$
      DECLARE
        prev events%ROWTYPE;
        added events%ROWTYPE;
      BEGIN
        SELECT * INTO prev FROM events WHERE session = p_session ORDER BY id DESC LIMIT 1;
        IF FOUND AND prev.text = p_text AND prev.status IN ('pending', 'processing') THEN
          RETURN;
        END IF;
        INSERT INTO events (session, text, status, created_at, untrusted) VALUES (p_session, p_text, 'pending', p_now, p_untrusted) RETURNING * INTO added;
        PERFORM herald_drop_overflow(p_session, p_max);
        RETURN NEXT added;
      END $$;

      CREATE OR REPLACE FUNCTION herald_enqueue_events(p_session TEXT, p_texts TEXT[], p_max INT, p_now BIGINT)
      RETURNS TABLE (n INT, id BIGINT) LANGUAGE plpgsql AS $$
      DECLARE
        prev_text TEXT;
        prev_live BOOLEAN;
      BEGIN
        IF p_max < 1 THEN
          FOR i IN 1 .. COALESCE(array_length(p_texts, 1), 0) LOOP
            RETURN QUERY SELECT i, e.id FROM herald_enqueue_event(p_session, p_texts[i], p_max, p_now) e;
          END LOOP;
          RETURN;
        END IF;
        SELECT e.text, e.status IN ('pending', 'processing') INTO prev_text, prev_live
          FROM events e WHERE e.session = p_session ORDER BY e.id DESC LIMIT 1;
        RETURN QUERY
          WITH input AS (
            SELECT t.text, t.n::int AS n, lag(t.text) OVER (ORDER BY t.n) AS before
            FROM unnest(p_texts) WITH ORDINALITY AS t(text, n)),
          kept AS (
            SELECT i.text, i.n FROM input i
            WHERE NOT CASE WHEN i.n = 1 THEN COALESCE(prev_live AND prev_text = i.text, false) ELSE i.before = i.text END),
          added AS (
            INSERT INTO events (session, text, status, created_at) SELECT p_session, k.text, 'pending', p_now FROM kept k ORDER BY k.n
            RETURNING events.id)
          SELECT k.n, a.id
          FROM (SELECT kept.n, row_number() OVER (ORDER BY kept.n) AS r FROM kept) k
          JOIN (SELECT added.id, row_number() OVER (ORDER BY added.id) AS r FROM added) a ON a.r = k.r;
        PERFORM herald_drop_overflow(p_session, p_max);
      END $$;

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
  },
  {
    version: 24,
    name: 'runs: the claim reads the queued runs and the expired leases apart, past no run held; the counts upserted with a kept plan, a status change in one statement',
    sql: `
      -- runs_ready held every ready run, the running ones too: each claim walked past every run
      -- under a live lease (what every replica holds, claimed ahead) and read each one's row to
      -- see its lease, before the first queued run. The queued runs and the running ones are now
      -- indexed apart: the claim starts at the first queued run, and a lease that ran out (a dead
      -- claimer's run) is found by its end, not by a walk
      CREATE INDEX runs_queued ON runs (seq) WHERE NOT waiting AND status = 'queued' AND concurrency IS NULL;
      CREATE INDEX runs_leased ON runs ((COALESCE(lease_until, 0))) WHERE NOT waiting AND status = 'running' AND concurrency IS NULL;
      DROP INDEX runs_ready;

      -- herald_claim_runs of migration 21: the runs whose lease ran out, then the queued ones, the
      -- oldest p_limit of both taken
      CREATE OR REPLACE FUNCTION herald_claim_runs(p_owner TEXT, p_now BIGINT, p_until BIGINT, p_limit INT)
      RETURNS TABLE (id TEXT, status TEXT, agent_id TEXT, name TEXT, session_key TEXT, message TEXT, action JSONB,
        reply TEXT, error TEXT, created_at BIGINT, started_at BIGINT, finished_at BIGINT, rerun_of TEXT, model TEXT, not_before BIGINT,
        waited_for TEXT, coalesced JSONB, seq BIGINT, behind BOOLEAN)
      LANGUAGE plpgsql SET search_path FROM CURRENT SET enable_bitmapscan = off SET enable_seqscan = off SET plan_cache_mode = force_generic_plan AS $$
      #variable_conflict use_column
      BEGIN
        RETURN QUERY
          WITH expired AS (
            SELECT r.id, r.seq FROM runs r
            WHERE NOT r.waiting AND r.status = 'running' AND r.concurrency IS NULL AND COALESCE(r.lease_until, 0) < p_now
              AND (r.not_before IS NULL OR r.not_before <= p_now)
            ORDER BY COALESCE(r.lease_until, 0) LIMIT p_limit
            FOR UPDATE SKIP LOCKED),
          queued AS (
            SELECT r.id, r.seq FROM runs r
            WHERE NOT r.waiting AND r.status = 'queued' AND r.concurrency IS NULL AND (r.not_before IS NULL OR r.not_before <= p_now)
            ORDER BY r.seq LIMIT p_limit
            FOR UPDATE SKIP LOCKED),
          candidates AS (
            SELECT c.id FROM (SELECT e.id, e.seq FROM expired e UNION ALL SELECT q.id, q.seq FROM queued q) c ORDER BY c.seq LIMIT p_limit)
          UPDATE runs SET status = 'running', started_at = p_now, lease_owner = p_owner, lease_until = p_until
          FROM candidates WHERE runs.id = candidates.id
          RETURNING runs.id, runs.status, runs.agent_id, runs.name, runs.session_key, runs.message, runs.action, runs.reply, runs.error,
            runs.created_at, runs.started_at, runs.finished_at, runs.rerun_of, runs.model, runs.not_before, runs.waited_for, runs.coalesced, runs.seq,
            EXISTS (SELECT 1 FROM runs b WHERE b.session_key = runs.session_key AND b.status IN ('queued', 'running') AND b.seq > runs.seq);
      END $$;

      -- A LANGUAGE sql function whose body is an INSERT is never inlined: every call from a
      -- trigger parsed and planned its upsert again. plpgsql keeps the plan for the connection.
      -- It runs under its caller's search_path (every caller is a function of this schema that sets it)
      CREATE OR REPLACE FUNCTION herald_count(p_name TEXT, p_delta BIGINT) RETURNS void LANGUAGE plpgsql AS $f$
      BEGIN
        INSERT INTO store_counts (name, shard, n) VALUES (p_name, pg_backend_pid(), p_delta)
        ON CONFLICT (name, shard) DO UPDATE SET n = store_counts.n + EXCLUDED.n;
      END $f$;

      -- herald_count_status of migration 5: a row moving between two counted statuses is counted
      -- by one upsert of both, not two calls
      CREATE OR REPLACE FUNCTION herald_count_status() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
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

      -- herald_count_status_rows of migration 22: every status a statement moved, in one upsert
      CREATE OR REPLACE FUNCTION herald_count_status_rows() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
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

      -- A plpgsql statement with parameters is planned again at each call until the plan cache
      -- judges a generic plan cheap enough, which the planner settings above kept it from doing:
      -- the run path's functions planned their statements at every call. Their plans do not
      -- depend on the values (an id, a session, a limit), so the generic plan is made once
      ALTER FUNCTION herald_complete_run_and_claim(TEXT, TEXT, TEXT, TEXT, BIGINT, TEXT, TEXT[], TEXT[], TEXT[], JSONB[], BIGINT[], TEXT, TEXT, INT, BIGINT, BOOLEAN, TEXT, BIGINT, BIGINT, INT)
        SET plan_cache_mode = force_generic_plan;
      ALTER FUNCTION herald_enqueue_event(TEXT, TEXT, INT, BIGINT, BOOLEAN) SET plan_cache_mode = force_generic_plan;
      ALTER FUNCTION herald_drop_overflow(TEXT, INT) SET plan_cache_mode = force_generic_plan;

      -- events_session_status served the queue's statements alone, each naming an open status,
      -- which events_open (migration 23) answers; the operator's lists filter a status through
      -- events_session_created or events_created (as on SQLite, its migration 33)
      DROP INDEX events_session_status;
    `,
  },
  {
    version: 25,
    name: 'runs: the completions of a turn, and the claim after each, in one call',
    sql: `
      -- A completions transaction sent one call of herald_complete_run_and_claim per run, each
      -- waiting for the one before: while runs drained, the connection spent as long idle in its
      -- transaction, waiting for herald's next statement, as executing. One call now takes the
      -- batch: a JSON array of the calls' arguments, done in order, each as its own call would.
      -- Rows: each call's rows (see migration 20), with n, its place in the batch from 1.
      CREATE FUNCTION herald_complete_runs_and_claim(p_batch JSONB)
      RETURNS TABLE (n INT, finished BOOLEAN, id TEXT, status TEXT, agent_id TEXT, name TEXT, session_key TEXT, message TEXT, action JSONB,
        reply TEXT, error TEXT, created_at BIGINT, started_at BIGINT, finished_at BIGINT, rerun_of TEXT, model TEXT, not_before BIGINT,
        waited_for TEXT, coalesced JSONB, seq BIGINT, behind BOOLEAN)
      LANGUAGE plpgsql SET search_path FROM CURRENT SET plan_cache_mode = force_generic_plan AS $$
      DECLARE
        c JSONB;
        i INT := 0;
      BEGIN
        FOR c IN SELECT e.value FROM jsonb_array_elements(p_batch) WITH ORDINALITY AS e(value, o) ORDER BY e.o LOOP
          i := i + 1;
          RETURN QUERY SELECT i, r.* FROM herald_complete_run_and_claim(
            c->>'id', c->>'status', c->>'reply', c->>'error', (c->>'at')::bigint, c->>'model',
            ARRAY(SELECT m.value->>'role' FROM jsonb_array_elements(c->'messages') WITH ORDINALITY AS m(value, o) ORDER BY m.o),
            ARRAY(SELECT m.value->>'content' FROM jsonb_array_elements(c->'messages') WITH ORDINALITY AS m(value, o) ORDER BY m.o),
            ARRAY(SELECT m.value->>'runId' FROM jsonb_array_elements(c->'messages') WITH ORDINALITY AS m(value, o) ORDER BY m.o),
            ARRAY(SELECT NULLIF(m.value->'meta', 'null'::jsonb) FROM jsonb_array_elements(c->'messages') WITH ORDINALITY AS m(value, o) ORDER BY m.o),
            ARRAY(SELECT (m.value->>'createdAt')::bigint FROM jsonb_array_elements(c->'messages') WITH ORDINALITY AS m(value, o) ORDER BY m.o),
            c->>'summarySession', c->>'summaryText', (c->>'maxPending')::int, (c->>'now')::bigint, (c->>'untrusted')::boolean,
            c->>'owner', (c->>'claimNow')::bigint, (c->>'until')::bigint, 1) r;
        END LOOP;
      END $$;
    `,
  },
  {
    version: 26,
    name: "scale: fewer index entries per request and per run (events_session_id dropped, receipts_run over the requests that started a run, runs_status over finished runs), as on SQLite",
    sql: `
      -- A change of a run's or an event's status is never a HOT update here (status is in the
      -- queue indexes' conditions), so every such change writes an entry into EVERY index whose
      -- condition the new row meets. What each index below cost: an entry per row inserted and
      -- per status change; what serves its readers now, as SQLite's migrations 18 and 30 did.

      -- Two indexes led by the session, one by id and one by time, each written by every event
      -- inserted and every event dropped. The newest event of a session (each enqueue's repeat
      -- check) and a session's list now read the one by time, which the operator's lists need.
      DROP INDEX events_session_id;
      CREATE OR REPLACE FUNCTION herald_enqueue_event(p_session TEXT, p_text TEXT, p_max INT, p_now BIGINT, p_untrusted BOOLEAN DEFAULT FALSE)
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
      CREATE OR REPLACE FUNCTION herald_enqueue_events(p_session TEXT, p_texts TEXT[], p_max INT, p_now BIGINT)
      RETURNS TABLE (n INT, id BIGINT) LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
      DECLARE
        prev_text TEXT;
        prev_live BOOLEAN;
      BEGIN
        IF p_max < 1 THEN
          FOR i IN 1 .. COALESCE(array_length(p_texts, 1), 0) LOOP
            RETURN QUERY SELECT i, e.id FROM herald_enqueue_event(p_session, p_texts[i], p_max, p_now) e;
          END LOOP;
          RETURN;
        END IF;
        SELECT e.text, e.status IN ('pending', 'processing') INTO prev_text, prev_live
          FROM events e WHERE e.session = p_session ORDER BY e.created_at DESC, e.id DESC LIMIT 1;
        RETURN QUERY
          WITH input AS (
            SELECT t.text, t.n::int AS n, lag(t.text) OVER (ORDER BY t.n) AS before
            FROM unnest(p_texts) WITH ORDINALITY AS t(text, n)),
          kept AS (
            SELECT i.text, i.n FROM input i
            WHERE NOT CASE WHEN i.n = 1 THEN COALESCE(prev_live AND prev_text = i.text, false) ELSE i.before = i.text END),
          added AS (
            INSERT INTO events (session, text, status, created_at) SELECT p_session, k.text, 'pending', p_now FROM kept k ORDER BY k.n
            RETURNING events.id)
          SELECT k.n, a.id
          FROM (SELECT kept.n, row_number() OVER (ORDER BY kept.n) AS r FROM kept) k
          JOIN (SELECT added.id, row_number() OVER (ORDER BY added.id) AS r FROM added) a ON a.r = k.r;
        PERFORM herald_drop_overflow(p_session, p_max);
      END $$;

      -- A wake or a refused request had an entry under NULL; run_id = $1 implies the condition
      DROP INDEX receipts_run;
      CREATE INDEX receipts_run ON receipts (run_id) WHERE run_id IS NOT NULL;

      -- runs_status held every run under its status, so each run wrote it three times (inserted
      -- queued, claimed, finished). It holds the finished runs now, written once each; a list of
      -- queued or running runs reads runs_unfinished (the unfinished ones alone) and sorts them.
      -- The list's filter states each partial index's condition (browse-filters.ts)
      DROP INDEX runs_status;
      CREATE INDEX runs_status ON runs (status, created_at, id) WHERE status NOT IN ('queued', 'running');
    `,
  },
  {
    version: 27,
    name: "runs: a batch of completions appends its transcripts in one statement, drops the summaries' overflow once per queue and claims its next runs in one claim",
    sql: `
      -- herald_complete_runs_and_claim of migration 25 made herald_complete_run_and_claim's whole
      -- call for each completion: a claim of one run (the claim's fixed cost, about as much as the
      -- completion's update, paid per run), a transcript INSERT and its statement trigger, and an
      -- enqueue whose overflow drop searched the main session's pending events again after each
      -- summary. In one transaction none of those steps is seen between two completions, so the
      -- batch now completes its runs in order, appends every transcript in one INSERT (in order:
      -- run by run, message by message), enqueues the summaries in order with the same rule (a
      -- summary repeating the newest open event of its session is skipped), drops each queue's
      -- overflow once, and claims as many runs as it completed in one claim, one to each
      -- completed run in order (the claim's lease is the last completion's: one process's).
      -- Rows: as migration 25's: for each completion, its place n and finished; a completed run's
      -- row carries the run claimed for it, or none.
      CREATE OR REPLACE FUNCTION herald_complete_runs_and_claim(p_batch JSONB)
      RETURNS TABLE (n INT, finished BOOLEAN, id TEXT, status TEXT, agent_id TEXT, name TEXT, session_key TEXT, message TEXT, action JSONB,
        reply TEXT, error TEXT, created_at BIGINT, started_at BIGINT, finished_at BIGINT, rerun_of TEXT, model TEXT, not_before BIGINT,
        waited_for TEXT, coalesced JSONB, seq BIGINT, behind BOOLEAN)
      LANGUAGE plpgsql SET search_path FROM CURRENT SET plan_cache_mode = force_generic_plan AS $$
      #variable_conflict use_column
      DECLARE
        c JSONB;
        i INT := 0;
        v_session TEXT;
        v_done INT[] := '{}';
        v_done_sessions TEXT[] := '{}';
        v_refused INT[] := '{}';
        v_queues TEXT[] := '{}';
        v_maxes INT[] := '{}';
        v_prev_text TEXT;
        v_prev_live BOOLEAN;
        v_last JSONB;
      BEGIN
        FOR c IN SELECT e.value FROM jsonb_array_elements(p_batch) WITH ORDINALITY AS e(value, o) ORDER BY e.o LOOP
          i := i + 1;
          UPDATE runs SET status = c->>'status', reply = c->>'reply', error = c->>'error', finished_at = (c->>'at')::bigint,
            model = c->>'model', lease_owner = NULL, lease_until = NULL
          WHERE runs.id = c->>'id' AND runs.status IN ('queued', 'running') AND NOT runs.waiting
          RETURNING runs.session_key INTO v_session;
          IF NOT FOUND THEN
            v_refused := v_refused || i;
            CONTINUE;
          END IF;
          v_done := v_done || i;
          v_done_sessions := v_done_sessions || v_session;
          v_last := c;
          SELECT e.text, e.status IN ('pending', 'processing') INTO v_prev_text, v_prev_live
            FROM events e WHERE e.session = c->>'summarySession' ORDER BY e.created_at DESC, e.id DESC LIMIT 1;
          IF NOT (FOUND AND v_prev_live AND v_prev_text = c->>'summaryText') THEN
            INSERT INTO events (session, text, status, created_at, untrusted)
              VALUES (c->>'summarySession', c->>'summaryText', 'pending', (c->>'now')::bigint, (c->>'untrusted')::boolean);
          END IF;
          IF NOT EXISTS (SELECT 1 FROM unnest(v_queues, v_maxes) AS q(s, m) WHERE q.s = c->>'summarySession' AND q.m = (c->>'maxPending')::int) THEN
            v_queues := v_queues || (c->>'summarySession');
            v_maxes := v_maxes || (c->>'maxPending')::int;
          END IF;
        END LOOP;
        IF array_length(v_done, 1) IS NOT NULL THEN
          INSERT INTO session_messages (session_key, role, content, run_id, meta, created_at)
            SELECT d.session, m.value->>'role', m.value->>'content', m.value->>'runId', NULLIF(m.value->'meta', 'null'::jsonb), (m.value->>'createdAt')::bigint
            FROM unnest(v_done, v_done_sessions) WITH ORDINALITY AS d(n, session, k)
            CROSS JOIN LATERAL jsonb_array_elements(p_batch->(d.n - 1)->'messages') WITH ORDINALITY AS m(value, o)
            ORDER BY d.k, m.o;
          FOR k IN 1 .. array_length(v_queues, 1) LOOP
            PERFORM herald_drop_overflow(v_queues[k], v_maxes[k]);
          END LOOP;
        END IF;
        RETURN QUERY
          WITH claimed AS (
            SELECT cl.*, row_number() OVER (ORDER BY cl.seq) AS k
            FROM herald_claim_runs(v_last->>'owner', (v_last->>'claimNow')::bigint, (v_last->>'until')::bigint, COALESCE(array_length(v_done, 1), 0)) cl
            WHERE v_last IS NOT NULL)
          SELECT d.n, true, cl.id, cl.status, cl.agent_id, cl.name, cl.session_key, cl.message, cl.action, cl.reply, cl.error,
            cl.created_at, cl.started_at, cl.finished_at, cl.rerun_of, cl.model, cl.not_before, cl.waited_for, cl.coalesced, cl.seq, cl.behind
          FROM unnest(v_done) WITH ORDINALITY AS d(n, k) LEFT JOIN claimed cl ON cl.k = d.k
          UNION ALL
          SELECT r.n, false, NULL, NULL, NULL, NULL, NULL, NULL, NULL::jsonb, NULL, NULL, NULL::bigint, NULL::bigint, NULL::bigint, NULL, NULL,
            NULL::bigint, NULL, NULL::jsonb, NULL::bigint, NULL::boolean
          FROM unnest(v_refused) AS r(n);
      END $$;
    `,
  },
  {
    version: 28,
    name: 'operator: runs_mapping and receipts_mapping over what a mapping made (a direct /hooks/agent or /hooks/wake writes neither), as SQLite migration 34',
    sql: `
      -- a run or a request no mapping resolved (the direct endpoints) had an entry under NULL in
      -- each, written with every such request and, for runs_mapping, at every status change of
      -- such a run; the lists filter a mapping by equality, which implies the condition
      DROP INDEX runs_mapping;
      CREATE INDEX runs_mapping ON runs ((action->'source'->>'mappingId'), created_at, id) WHERE (action->'source'->>'mappingId') IS NOT NULL;
      DROP INDEX receipts_mapping;
      CREATE INDEX receipts_mapping ON receipts (mapping_id, received_at) WHERE mapping_id IS NOT NULL;
    `,
  },
  {
    version: 29,
    name: 'usage: a row holds the calls of one moment alike in whom they count against (calls), as SQLite migration 35',
    sql: `
      -- a row before this migration is one call; adding a column with a constant default rewrites nothing
      ALTER TABLE usage ADD COLUMN calls integer NOT NULL DEFAULT 1;
    `,
  },
  {
    version: 30,
    name: 'operator: receipts_failed over the failed requests (status >= 400) in place of receipts_status over all of them, as SQLite migration 37',
    sql: `
      DROP INDEX receipts_status;
      CREATE INDEX receipts_failed ON receipts (received_at, id) WHERE status >= 400;
    `,
  },
  {
    version: 31,
    name: "runs: the lists' indexes (runs_created, runs_session, runs_mapping) over the finished runs, written once per run; runs_to_deliver in place of runs_succeeded, as on SQLite",
    sql: `
      -- A run's claim and its end change its status, which the queue's indexes' conditions read,
      -- so neither update is HOT: each writes a new row version and an entry for it in every
      -- index whose condition it meets, these three included (three entries each per run).
      -- Over the finished runs only, each is written once, at the run's end; a list reads the
      -- unfinished runs beside them (browse-repo.ts, runsListPage), newest first from
      -- runs_unfinished however long a backlog, or a session's from runs_session_unfinished.
      -- runs_unfinished is keyed on the time alone: with the id in it too, the planner read a
      -- run's completion (WHERE id = $1 AND status IN ('queued', 'running')) from it, every
      -- unfinished run's entry, instead of from the primary key
      CREATE INDEX runs_unfinished ON runs (created_at) WHERE status IN ('queued', 'running');
      DROP INDEX runs_created;
      CREATE INDEX runs_created ON runs (created_at, id) WHERE status NOT IN ('queued', 'running');
      DROP INDEX runs_session;
      CREATE INDEX runs_session ON runs (session_key, created_at, id) WHERE status NOT IN ('queued', 'running');
      DROP INDEX runs_mapping;
      CREATE INDEX runs_mapping ON runs ((action->'source'->>'mappingId'), created_at, id)
        WHERE (action->'source'->>'mappingId') IS NOT NULL AND status NOT IN ('queued', 'running');
      -- runs_succeeded held every succeeded run for the one statement reading it (the replies
      -- awaiting delivery at start-up, deliveries-repo.ts), which asks for those to deliver with a reply
      DROP INDEX runs_succeeded;
      CREATE INDEX runs_to_deliver ON runs (finished_at) WHERE status = 'succeeded' AND deliver AND reply IS NOT NULL;
    `,
  },
  {
    version: 32,
    name: 'operator: runs_status over the runs that did not succeed, runs_mapping and receipts_mapping without the built-in endpoints, as SQLite migration 38',
    sql: `
      DROP INDEX runs_status;
      CREATE INDEX runs_status ON runs (status, created_at, id) WHERE status <> 'queued' AND status <> 'running' AND status <> 'succeeded';
      DROP INDEX runs_mapping;
      CREATE INDEX runs_mapping ON runs ((action->'source'->>'mappingId'), created_at, id)
        WHERE (action->'source'->>'mappingId') NOT IN ('agent') AND status NOT IN ('queued', 'running');
      DROP INDEX receipts_mapping;
      CREATE INDEX receipts_mapping ON receipts (mapping_id, received_at) WHERE mapping_id NOT IN ('agent', 'wake');
    `,
  },
  {
    version: 33,
    name: "scale: a run's moves counted once per statement or batch, not by a row trigger at every insert, claim and end, and a batch of completions' summary events once per batch, as SQLite counts once per group commit (migration 28)",
    sql: `
      -- runs_counted upserted this backend's share of store_counts for every run inserted, for
      -- its claim and for its end: three upserts per run, each a new row version and its WAL,
      -- where one per statement or per call counts the same moves. A statement of inserted or
      -- deleted runs is counted once from its transition table, as events are (migration 22);
      -- the claim and the batch of completions, which move most runs, count their moves once per
      -- call and switch the row trigger off while they run (herald.runs_counted, a setting of
      -- the function: back as it was when the call ends); every other change of status (a
      -- release, a cancel, the runs claimed behind a session's head, psql) is still counted row by row.
      -- The batch of completions counts the summary events it inserts the same way
      -- (herald.event_inserts_counted); the drops of the queues' overflow it makes are counted
      -- by the events' update trigger as any other.
      DROP TRIGGER runs_counted ON runs;
      CREATE TRIGGER runs_counted_insert AFTER INSERT ON runs REFERENCING NEW TABLE AS new_rows
        FOR EACH STATEMENT EXECUTE FUNCTION herald_count_status_rows('queued', 'running');
      CREATE TRIGGER runs_counted_delete AFTER DELETE ON runs REFERENCING OLD TABLE AS old_rows
        FOR EACH STATEMENT EXECUTE FUNCTION herald_count_status_rows('queued', 'running');
      CREATE TRIGGER runs_counted AFTER UPDATE OF status ON runs FOR EACH ROW
        WHEN (OLD.status IS DISTINCT FROM NEW.status AND current_setting('herald.runs_counted', true) IS DISTINCT FROM 'by_caller')
        EXECUTE FUNCTION herald_count_status('queued', 'running');
      DROP TRIGGER events_counted_insert ON events;
      CREATE TRIGGER events_counted_insert AFTER INSERT ON events REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT
        WHEN (current_setting('herald.event_inserts_counted', true) IS DISTINCT FROM 'by_caller')
        EXECUTE FUNCTION herald_count_status_rows('pending', 'dropped');

      -- herald_claim_runs of migration 24, counting its moves: a queued run taken is one queued
      -- fewer and one running more; an expired lease taken again stays running
      CREATE OR REPLACE FUNCTION herald_claim_runs(p_owner TEXT, p_now BIGINT, p_until BIGINT, p_limit INT)
      RETURNS TABLE (id TEXT, status TEXT, agent_id TEXT, name TEXT, session_key TEXT, message TEXT, action JSONB,
        reply TEXT, error TEXT, created_at BIGINT, started_at BIGINT, finished_at BIGINT, rerun_of TEXT, model TEXT, not_before BIGINT,
        waited_for TEXT, coalesced JSONB, seq BIGINT, behind BOOLEAN)
      LANGUAGE plpgsql SET search_path FROM CURRENT SET enable_bitmapscan = off SET enable_seqscan = off SET plan_cache_mode = force_generic_plan
        SET herald.runs_counted = 'by_caller' AS $$
      #variable_conflict use_column
      BEGIN
        RETURN QUERY
          WITH expired AS (
            SELECT r.id, r.seq FROM runs r
            WHERE NOT r.waiting AND r.status = 'running' AND r.concurrency IS NULL AND COALESCE(r.lease_until, 0) < p_now
              AND (r.not_before IS NULL OR r.not_before <= p_now)
            ORDER BY COALESCE(r.lease_until, 0) LIMIT p_limit
            FOR UPDATE SKIP LOCKED),
          queued AS (
            SELECT r.id, r.seq FROM runs r
            WHERE NOT r.waiting AND r.status = 'queued' AND r.concurrency IS NULL AND (r.not_before IS NULL OR r.not_before <= p_now)
            ORDER BY r.seq LIMIT p_limit
            FOR UPDATE SKIP LOCKED),
          candidates AS (
            SELECT c.id, c.was_queued FROM (SELECT e.id, e.seq, false AS was_queued FROM expired e UNION ALL SELECT q.id, q.seq, true FROM queued q) c
            ORDER BY c.seq LIMIT p_limit),
          claimed AS (
            UPDATE runs SET status = 'running', started_at = p_now, lease_owner = p_owner, lease_until = p_until
            FROM candidates WHERE runs.id = candidates.id
            RETURNING runs.id, runs.status, runs.agent_id, runs.name, runs.session_key, runs.message, runs.action, runs.reply, runs.error,
              runs.created_at, runs.started_at, runs.finished_at, runs.rerun_of, runs.model, runs.not_before, runs.waited_for, runs.coalesced, runs.seq,
              EXISTS (SELECT 1 FROM runs b WHERE b.session_key = runs.session_key AND b.status IN ('queued', 'running') AND b.seq > runs.seq) AS behind,
              candidates.was_queued),
          -- a data-modifying WITH runs once, read or not
          counted AS (
            INSERT INTO store_counts (name, shard, n)
              SELECT c.name, pg_backend_pid(), c.n FROM (SELECT count(*) AS k FROM claimed cl WHERE cl.was_queued) q
              CROSS JOIN LATERAL (VALUES ('runs:queued', -q.k), ('runs:running', q.k)) AS c(name, n) WHERE q.k > 0
            ON CONFLICT (name, shard) DO UPDATE SET n = store_counts.n + EXCLUDED.n)
          SELECT cl.id, cl.status, cl.agent_id, cl.name, cl.session_key, cl.message, cl.action, cl.reply, cl.error, cl.created_at, cl.started_at,
            cl.finished_at, cl.rerun_of, cl.model, cl.not_before, cl.waited_for, cl.coalesced, cl.seq, cl.behind
          FROM claimed cl;
      END $$;
      -- herald_complete_runs_and_claim of migration 27, counting its moves once per call
      CREATE OR REPLACE FUNCTION herald_complete_runs_and_claim(p_batch JSONB)
      RETURNS TABLE (n INT, finished BOOLEAN, id TEXT, status TEXT, agent_id TEXT, name TEXT, session_key TEXT, message TEXT, action JSONB,
        reply TEXT, error TEXT, created_at BIGINT, started_at BIGINT, finished_at BIGINT, rerun_of TEXT, model TEXT, not_before BIGINT,
        waited_for TEXT, coalesced JSONB, seq BIGINT, behind BOOLEAN)
      LANGUAGE plpgsql SET search_path FROM CURRENT SET plan_cache_mode = force_generic_plan
        SET herald.runs_counted = 'by_caller' SET herald.event_inserts_counted = 'by_caller' AS $$
      #variable_conflict use_column
      DECLARE
        c JSONB;
        i INT := 0;
        v_session TEXT;
        v_done INT[] := '{}';
        v_done_sessions TEXT[] := '{}';
        v_refused INT[] := '{}';
        v_queues TEXT[] := '{}';
        v_maxes INT[] := '{}';
        v_prev_text TEXT;
        v_prev_live BOOLEAN;
        v_last JSONB;
        v_from TEXT;
        v_moves TEXT[] := '{}';
        v_events INT := 0;
      BEGIN
        FOR c IN SELECT e.value FROM jsonb_array_elements(p_batch) WITH ORDINALITY AS e(value, o) ORDER BY e.o LOOP
          i := i + 1;
          -- the status it leaves, for the counts: a completion ends a running run but for a rare
          -- one (its lease lost and the run given back to the queue), so that is tried first
          FOREACH v_from IN ARRAY ARRAY['running', 'queued'] LOOP
            UPDATE runs SET status = c->>'status', reply = c->>'reply', error = c->>'error', finished_at = (c->>'at')::bigint,
              model = c->>'model', lease_owner = NULL, lease_until = NULL
            WHERE runs.id = c->>'id' AND runs.status = v_from AND NOT runs.waiting
            RETURNING runs.session_key INTO v_session;
            EXIT WHEN FOUND;
          END LOOP;
          -- (FOUND says the loop ran, not that a row was: the row's session says it)
          IF v_session IS NULL THEN
            v_refused := v_refused || i;
            CONTINUE;
          END IF;
          v_moves := v_moves || v_from || (c->>'status');
          v_done := v_done || i;
          v_done_sessions := v_done_sessions || v_session;
          v_last := c;
          SELECT e.text, e.status IN ('pending', 'processing') INTO v_prev_text, v_prev_live
            FROM events e WHERE e.session = c->>'summarySession' ORDER BY e.created_at DESC, e.id DESC LIMIT 1;
          IF NOT (FOUND AND v_prev_live AND v_prev_text = c->>'summaryText') THEN
            INSERT INTO events (session, text, status, created_at, untrusted)
              VALUES (c->>'summarySession', c->>'summaryText', 'pending', (c->>'now')::bigint, (c->>'untrusted')::boolean);
            v_events := v_events + 1;
          END IF;
          IF NOT EXISTS (SELECT 1 FROM unnest(v_queues, v_maxes) AS q(s, m) WHERE q.s = c->>'summarySession' AND q.m = (c->>'maxPending')::int) THEN
            v_queues := v_queues || (c->>'summarySession');
            v_maxes := v_maxes || (c->>'maxPending')::int;
          END IF;
        END LOOP;
        IF array_length(v_done, 1) IS NOT NULL THEN
          INSERT INTO session_messages (session_key, role, content, run_id, meta, created_at)
            SELECT d.session, m.value->>'role', m.value->>'content', m.value->>'runId', NULLIF(m.value->'meta', 'null'::jsonb), (m.value->>'createdAt')::bigint
            FROM unnest(v_done, v_done_sessions) WITH ORDINALITY AS d(n, session, k)
            CROSS JOIN LATERAL jsonb_array_elements(p_batch->(d.n - 1)->'messages') WITH ORDINALITY AS m(value, o)
            ORDER BY d.k, m.o;
          FOR k IN 1 .. array_length(v_queues, 1) LOOP
            PERFORM herald_drop_overflow(v_queues[k], v_maxes[k]);
          END LOOP;
        END IF;
        -- each status a run left counts one fewer, each entered one more (a completion enters no
        -- counted one), and each summary event inserted one more pending
        INSERT INTO store_counts (name, shard, n)
          SELECT c.name, pg_backend_pid(), sum(c.n) FROM (
            SELECT 'runs:' || m.status AS name, CASE WHEN m.o % 2 = 1 THEN -1 ELSE 1 END AS n
            FROM unnest(v_moves) WITH ORDINALITY AS m(status, o) WHERE m.status IN ('queued', 'running')
            UNION ALL SELECT 'events:pending', v_events WHERE v_events > 0) c
          GROUP BY c.name
        ON CONFLICT (name, shard) DO UPDATE SET n = store_counts.n + EXCLUDED.n;
        RETURN QUERY
          WITH claimed AS (
            SELECT cl.*, row_number() OVER (ORDER BY cl.seq) AS k
            FROM herald_claim_runs(v_last->>'owner', (v_last->>'claimNow')::bigint, (v_last->>'until')::bigint, COALESCE(array_length(v_done, 1), 0)) cl
            WHERE v_last IS NOT NULL)
          SELECT d.n, true, cl.id, cl.status, cl.agent_id, cl.name, cl.session_key, cl.message, cl.action, cl.reply, cl.error,
            cl.created_at, cl.started_at, cl.finished_at, cl.rerun_of, cl.model, cl.not_before, cl.waited_for, cl.coalesced, cl.seq, cl.behind
          FROM unnest(v_done) WITH ORDINALITY AS d(n, k) LEFT JOIN claimed cl ON cl.k = d.k
          UNION ALL
          SELECT r.n, false, NULL, NULL, NULL, NULL, NULL, NULL, NULL::jsonb, NULL, NULL, NULL::bigint, NULL::bigint, NULL::bigint, NULL, NULL,
            NULL::bigint, NULL, NULL::jsonb, NULL::bigint, NULL::boolean
          FROM unnest(v_refused) AS r(n);
      END $$;
    `,
  },
  {
    version: 34,
    name: 'scale: whether a governed run is unfinished read from runs_governed however the table has grown since the question was first planned',
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
  },
  {
    version: 35,
    name: "tools: every tool call on the record (tool_calls), a run's turn checkpointed (turn_state), runs waiting for a person's approval, as SQLite migration 40",
    sql: `
      -- A run waiting for approval (waiting_approval) is unfinished: its session's later runs wait
      -- behind it (flagged waiting at their insert, released only at its end), but the claim,
      -- which reads the queue's indexes (runs_queued, runs_leased: one status each), never takes
      -- it. Its pause (running -> waiting_approval) and its return to the queue release nothing;
      -- its end (a cancel) releases the next run as any end does. Counted as the queue's statuses are
      ALTER TABLE runs ADD COLUMN turn_state JSONB;
      CREATE OR REPLACE FUNCTION herald_run_inserted() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
      BEGIN
        IF NEW.status IN ('queued', 'running') THEN
          PERFORM pg_advisory_xact_lock(hashtext('herald.runs:' || current_schema() || ':' || NEW.session_key));
          NEW.waiting := EXISTS (SELECT 1 FROM runs WHERE session_key = NEW.session_key AND status IN ('queued', 'running', 'waiting_approval'));
        END IF;
        RETURN NEW;
      END $$;
      CREATE OR REPLACE FUNCTION herald_run_ended() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
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
      DROP TRIGGER runs_release_next ON runs;
      CREATE TRIGGER runs_release_next AFTER UPDATE OF status ON runs FOR EACH ROW
        WHEN (OLD.status IN ('queued', 'running', 'waiting_approval') AND NEW.status NOT IN ('queued', 'running', 'waiting_approval') AND NOT OLD.waiting)
        EXECUTE FUNCTION herald_run_ended();
      DROP TRIGGER runs_counted_insert ON runs;
      CREATE TRIGGER runs_counted_insert AFTER INSERT ON runs REFERENCING NEW TABLE AS new_rows
        FOR EACH STATEMENT EXECUTE FUNCTION herald_count_status_rows('queued', 'running', 'waiting_approval');
      DROP TRIGGER runs_counted_delete ON runs;
      CREATE TRIGGER runs_counted_delete AFTER DELETE ON runs REFERENCING OLD TABLE AS old_rows
        FOR EACH STATEMENT EXECUTE FUNCTION herald_count_status_rows('queued', 'running', 'waiting_approval');
      DROP TRIGGER runs_counted ON runs;
      CREATE TRIGGER runs_counted AFTER UPDATE OF status ON runs FOR EACH ROW
        WHEN (OLD.status IS DISTINCT FROM NEW.status AND current_setting('herald.runs_counted', true) IS DISTINCT FROM 'by_caller')
        EXECUTE FUNCTION herald_count_status('queued', 'running', 'waiting_approval');

      -- the claim and the batch of completions of migration 33, returning each claimed run's
      -- turn_state too (a run resumed after an approval, or retaken after a crash, goes on from
      -- it). A function's result type is changed only by making it again.
      -- herald_complete_run_and_claim has not been called since migration 25, and read the old claim's rows
      DROP FUNCTION herald_complete_run_and_claim(TEXT, TEXT, TEXT, TEXT, BIGINT, TEXT, TEXT[], TEXT[], TEXT[], JSONB[], BIGINT[], TEXT, TEXT, INT, BIGINT, BOOLEAN, TEXT, BIGINT, BIGINT, INT);
      DROP FUNCTION herald_complete_runs_and_claim(JSONB);
      DROP FUNCTION herald_claim_runs(TEXT, BIGINT, BIGINT, INT);
      CREATE FUNCTION herald_claim_runs(p_owner TEXT, p_now BIGINT, p_until BIGINT, p_limit INT)
      RETURNS TABLE (id TEXT, status TEXT, agent_id TEXT, name TEXT, session_key TEXT, message TEXT, action JSONB,
        reply TEXT, error TEXT, created_at BIGINT, started_at BIGINT, finished_at BIGINT, rerun_of TEXT, model TEXT, not_before BIGINT,
        waited_for TEXT, coalesced JSONB, turn_state JSONB, seq BIGINT, behind BOOLEAN)
      LANGUAGE plpgsql SET search_path FROM CURRENT SET enable_bitmapscan = off SET enable_seqscan = off SET plan_cache_mode = force_generic_plan
        SET herald.runs_counted = 'by_caller' AS $$
      #variable_conflict use_column
      BEGIN
        RETURN QUERY
          WITH expired AS (
            SELECT r.id, r.seq FROM runs r
            WHERE NOT r.waiting AND r.status = 'running' AND r.concurrency IS NULL AND COALESCE(r.lease_until, 0) < p_now
              AND (r.not_before IS NULL OR r.not_before <= p_now)
            ORDER BY COALESCE(r.lease_until, 0) LIMIT p_limit
            FOR UPDATE SKIP LOCKED),
          queued AS (
            SELECT r.id, r.seq FROM runs r
            WHERE NOT r.waiting AND r.status = 'queued' AND r.concurrency IS NULL AND (r.not_before IS NULL OR r.not_before <= p_now)
            ORDER BY r.seq LIMIT p_limit
            FOR UPDATE SKIP LOCKED),
          candidates AS (
            SELECT c.id, c.was_queued FROM (SELECT e.id, e.seq, false AS was_queued FROM expired e UNION ALL SELECT q.id, q.seq, true FROM queued q) c
            ORDER BY c.seq LIMIT p_limit),
          claimed AS (
            UPDATE runs SET status = 'running', started_at = p_now, lease_owner = p_owner, lease_until = p_until
            FROM candidates WHERE runs.id = candidates.id
            RETURNING runs.id, runs.status, runs.agent_id, runs.name, runs.session_key, runs.message, runs.action, runs.reply, runs.error,
              runs.created_at, runs.started_at, runs.finished_at, runs.rerun_of, runs.model, runs.not_before, runs.waited_for, runs.coalesced, runs.turn_state, runs.seq,
              EXISTS (SELECT 1 FROM runs b WHERE b.session_key = runs.session_key AND b.status IN ('queued', 'running') AND b.seq > runs.seq) AS behind,
              candidates.was_queued),
          -- a data-modifying WITH runs once, read or not
          counted AS (
            INSERT INTO store_counts (name, shard, n)
              SELECT c.name, pg_backend_pid(), c.n FROM (SELECT count(*) AS k FROM claimed cl WHERE cl.was_queued) q
              CROSS JOIN LATERAL (VALUES ('runs:queued', -q.k), ('runs:running', q.k)) AS c(name, n) WHERE q.k > 0
            ON CONFLICT (name, shard) DO UPDATE SET n = store_counts.n + EXCLUDED.n)
          SELECT cl.id, cl.status, cl.agent_id, cl.name, cl.session_key, cl.message, cl.action, cl.reply, cl.error, cl.created_at, cl.started_at,
            cl.finished_at, cl.rerun_of, cl.model, cl.not_before, cl.waited_for, cl.coalesced, cl.turn_state, cl.seq, cl.behind
          FROM claimed cl;
      END $$;
      CREATE FUNCTION herald_complete_runs_and_claim(p_batch JSONB)
      RETURNS TABLE (n INT, finished BOOLEAN, id TEXT, status TEXT, agent_id TEXT, name TEXT, session_key TEXT, message TEXT, action JSONB,
        reply TEXT, error TEXT, created_at BIGINT, started_at BIGINT, finished_at BIGINT, rerun_of TEXT, model TEXT, not_before BIGINT,
        waited_for TEXT, coalesced JSONB, turn_state JSONB, seq BIGINT, behind BOOLEAN)
      LANGUAGE plpgsql SET search_path FROM CURRENT SET plan_cache_mode = force_generic_plan
        SET herald.runs_counted = 'by_caller' SET herald.event_inserts_counted = 'by_caller' AS $$
      #variable_conflict use_column
      DECLARE
        c JSONB;
        i INT := 0;
        v_session TEXT;
        v_done INT[] := '{}';
        v_done_sessions TEXT[] := '{}';
        v_refused INT[] := '{}';
        v_queues TEXT[] := '{}';
        v_maxes INT[] := '{}';
        v_prev_text TEXT;
        v_prev_live BOOLEAN;
        v_last JSONB;
        v_from TEXT;
        v_moves TEXT[] := '{}';
        v_events INT := 0;
      BEGIN
        FOR c IN SELECT e.value FROM jsonb_array_elements(p_batch) WITH ORDINALITY AS e(value, o) ORDER BY e.o LOOP
          i := i + 1;
          -- the status it leaves, for the counts: a completion ends a running run but for a rare
          -- one (its lease lost and the run given back to the queue), so that is tried first
          FOREACH v_from IN ARRAY ARRAY['running', 'queued'] LOOP
            UPDATE runs SET status = c->>'status', reply = c->>'reply', error = c->>'error', finished_at = (c->>'at')::bigint,
              model = c->>'model', lease_owner = NULL, lease_until = NULL
            WHERE runs.id = c->>'id' AND runs.status = v_from AND NOT runs.waiting
            RETURNING runs.session_key INTO v_session;
            EXIT WHEN FOUND;
          END LOOP;
          -- (FOUND says the loop ran, not that a row was: the row's session says it)
          IF v_session IS NULL THEN
            v_refused := v_refused || i;
            CONTINUE;
          END IF;
          v_moves := v_moves || v_from || (c->>'status');
          v_done := v_done || i;
          v_done_sessions := v_done_sessions || v_session;
          v_last := c;
          SELECT e.text, e.status IN ('pending', 'processing') INTO v_prev_text, v_prev_live
            FROM events e WHERE e.session = c->>'summarySession' ORDER BY e.created_at DESC, e.id DESC LIMIT 1;
          IF NOT (FOUND AND v_prev_live AND v_prev_text = c->>'summaryText') THEN
            INSERT INTO events (session, text, status, created_at, untrusted)
              VALUES (c->>'summarySession', c->>'summaryText', 'pending', (c->>'now')::bigint, (c->>'untrusted')::boolean);
            v_events := v_events + 1;
          END IF;
          IF NOT EXISTS (SELECT 1 FROM unnest(v_queues, v_maxes) AS q(s, m) WHERE q.s = c->>'summarySession' AND q.m = (c->>'maxPending')::int) THEN
            v_queues := v_queues || (c->>'summarySession');
            v_maxes := v_maxes || (c->>'maxPending')::int;
          END IF;
        END LOOP;
        IF array_length(v_done, 1) IS NOT NULL THEN
          INSERT INTO session_messages (session_key, role, content, run_id, meta, created_at)
            SELECT d.session, m.value->>'role', m.value->>'content', m.value->>'runId', NULLIF(m.value->'meta', 'null'::jsonb), (m.value->>'createdAt')::bigint
            FROM unnest(v_done, v_done_sessions) WITH ORDINALITY AS d(n, session, k)
            CROSS JOIN LATERAL jsonb_array_elements(p_batch->(d.n - 1)->'messages') WITH ORDINALITY AS m(value, o)
            ORDER BY d.k, m.o;
          FOR k IN 1 .. array_length(v_queues, 1) LOOP
            PERFORM herald_drop_overflow(v_queues[k], v_maxes[k]);
          END LOOP;
        END IF;
        -- each status a run left counts one fewer, each entered one more (a completion enters no
        -- counted one), and each summary event inserted one more pending
        INSERT INTO store_counts (name, shard, n)
          SELECT c.name, pg_backend_pid(), sum(c.n) FROM (
            SELECT 'runs:' || m.status AS name, CASE WHEN m.o % 2 = 1 THEN -1 ELSE 1 END AS n
            FROM unnest(v_moves) WITH ORDINALITY AS m(status, o) WHERE m.status IN ('queued', 'running')
            UNION ALL SELECT 'events:pending', v_events WHERE v_events > 0) c
          GROUP BY c.name
        ON CONFLICT (name, shard) DO UPDATE SET n = store_counts.n + EXCLUDED.n;
        RETURN QUERY
          WITH claimed AS (
            SELECT cl.*, row_number() OVER (ORDER BY cl.seq) AS k
            FROM herald_claim_runs(v_last->>'owner', (v_last->>'claimNow')::bigint, (v_last->>'until')::bigint, COALESCE(array_length(v_done, 1), 0)) cl
            WHERE v_last IS NOT NULL)
          SELECT d.n, true, cl.id, cl.status, cl.agent_id, cl.name, cl.session_key, cl.message, cl.action, cl.reply, cl.error,
            cl.created_at, cl.started_at, cl.finished_at, cl.rerun_of, cl.model, cl.not_before, cl.waited_for, cl.coalesced, cl.turn_state, cl.seq, cl.behind
          FROM unnest(v_done) WITH ORDINALITY AS d(n, k) LEFT JOIN claimed cl ON cl.k = d.k
          UNION ALL
          SELECT r.n, false, NULL, NULL, NULL, NULL, NULL, NULL, NULL::jsonb, NULL, NULL, NULL::bigint, NULL::bigint, NULL::bigint, NULL, NULL,
            NULL::bigint, NULL, NULL::jsonb, NULL::jsonb, NULL::bigint, NULL::boolean
          FROM unnest(v_refused) AS r(n);
      END $$;

      -- every tool call, stored before it executes and again when it ends. Read by its owner (a
      -- run's, a response's or a chat turn's calls, in the order they were made: seq) and, for
      -- the calls waiting for a person, from tool_calls_awaiting: few rows (each holds a paused
      -- run), so the approvals list and the expiry sweep both read it
      CREATE TABLE tool_calls (
        id TEXT PRIMARY KEY,
        seq BIGINT GENERATED ALWAYS AS IDENTITY,
        call_id TEXT NOT NULL,
        owner_kind TEXT NOT NULL,
        owner_id TEXT NOT NULL,
        agent_id TEXT NOT NULL,
        mapping_id TEXT,
        key_name TEXT,
        turn INT NOT NULL,
        server TEXT NOT NULL,
        tool TEXT NOT NULL,
        arguments TEXT NOT NULL,
        read_only BOOLEAN NOT NULL,
        status TEXT NOT NULL,
        result TEXT,
        error TEXT,
        created_at BIGINT NOT NULL,
        started_at BIGINT,
        finished_at BIGINT,
        duration_ms BIGINT,
        approval_required BOOLEAN NOT NULL,
        approval_expires_at BIGINT,
        approval JSONB
      );
      CREATE INDEX tool_calls_owner ON tool_calls (owner_kind, owner_id, seq);
      CREATE INDEX tool_calls_awaiting ON tool_calls (created_at, seq) WHERE status = 'waiting_approval' AND approval IS NULL;
    `,
  },
  {
    version: 36,
    name: 'schedules: jobs with their next due time, and one fire per job and due time, as SQLite migration 41',
    sql: `
      -- schedules: each job with the one due time it fires next. A fire is claimed by moving
      -- next_due from the due time it read (compare-and-set), so of any number of claimers of a
      -- due time one wins; schedule_fires keeps one row per (job, due time) as its record.
      CREATE TABLE schedules (
        id TEXT PRIMARY KEY,
        origin TEXT NOT NULL,
        job JSONB NOT NULL,
        enabled BOOLEAN NOT NULL,
        next_due BIGINT,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL
      );
      CREATE INDEX schedules_next_due ON schedules (next_due) WHERE enabled AND next_due IS NOT NULL;
      CREATE TABLE schedule_fires (
        schedule_id TEXT NOT NULL,
        due_at BIGINT NOT NULL,
        fired_at BIGINT NOT NULL,
        outcome TEXT NOT NULL,
        run_id TEXT,
        detail TEXT,
        PRIMARY KEY (schedule_id, due_at)
      );
      CREATE INDEX schedule_fires_claimed ON schedule_fires (fired_at) WHERE outcome = 'claimed';
    `,
  },
  {
    version: 37,
    name: 'schedule fires listed across jobs, newest due first, as SQLite migration 42',
    sql: `
      -- the fires list of every job (the schedules' receipts) walks this index newest first
      CREATE INDEX schedule_fires_due ON schedule_fires (due_at, schedule_id);
    `,
  },
  {
    version: 38,
    name: 'traces: the trace context a run and a delivery were made in, and a receipt\'s trace id, as SQLite migration 43',
    sql: `
      ALTER TABLE runs ADD COLUMN trace_context TEXT;
      ALTER TABLE deliveries ADD COLUMN trace_context TEXT;
      ALTER TABLE receipts ADD COLUMN trace_id TEXT;

      -- the claim and the batch of completions of migration 35, returning each claimed run's
      -- trace_context too (the replica that executes it continues its request's trace). A
      -- function's result type is changed only by making it again.
      DROP FUNCTION herald_complete_runs_and_claim(JSONB);
      DROP FUNCTION herald_claim_runs(TEXT, BIGINT, BIGINT, INT);
      CREATE FUNCTION herald_claim_runs(p_owner TEXT, p_now BIGINT, p_until BIGINT, p_limit INT)
      RETURNS TABLE (id TEXT, status TEXT, agent_id TEXT, name TEXT, session_key TEXT, message TEXT, action JSONB,
        reply TEXT, error TEXT, created_at BIGINT, started_at BIGINT, finished_at BIGINT, rerun_of TEXT, model TEXT, not_before BIGINT,
        waited_for TEXT, coalesced JSONB, turn_state JSONB, trace_context TEXT, seq BIGINT, behind BOOLEAN)
      LANGUAGE plpgsql SET search_path FROM CURRENT SET enable_bitmapscan = off SET enable_seqscan = off SET plan_cache_mode = force_generic_plan
        SET herald.runs_counted = 'by_caller' AS $$
      #variable_conflict use_column
      BEGIN
        RETURN QUERY
          WITH expired AS (
            SELECT r.id, r.seq FROM runs r
            WHERE NOT r.waiting AND r.status = 'running' AND r.concurrency IS NULL AND COALESCE(r.lease_until, 0) < p_now
              AND (r.not_before IS NULL OR r.not_before <= p_now)
            ORDER BY COALESCE(r.lease_until, 0) LIMIT p_limit
            FOR UPDATE SKIP LOCKED),
          queued AS (
            SELECT r.id, r.seq FROM runs r
            WHERE NOT r.waiting AND r.status = 'queued' AND r.concurrency IS NULL AND (r.not_before IS NULL OR r.not_before <= p_now)
            ORDER BY r.seq LIMIT p_limit
            FOR UPDATE SKIP LOCKED),
          candidates AS (
            SELECT c.id, c.was_queued FROM (SELECT e.id, e.seq, false AS was_queued FROM expired e UNION ALL SELECT q.id, q.seq, true FROM queued q) c
            ORDER BY c.seq LIMIT p_limit),
          claimed AS (
            UPDATE runs SET status = 'running', started_at = p_now, lease_owner = p_owner, lease_until = p_until
            FROM candidates WHERE runs.id = candidates.id
            RETURNING runs.id, runs.status, runs.agent_id, runs.name, runs.session_key, runs.message, runs.action, runs.reply, runs.error,
              runs.created_at, runs.started_at, runs.finished_at, runs.rerun_of, runs.model, runs.not_before, runs.waited_for, runs.coalesced, runs.turn_state, runs.trace_context, runs.seq,
              EXISTS (SELECT 1 FROM runs b WHERE b.session_key = runs.session_key AND b.status IN ('queued', 'running') AND b.seq > runs.seq) AS behind,
              candidates.was_queued),
          -- a data-modifying WITH runs once, read or not
          counted AS (
            INSERT INTO store_counts (name, shard, n)
              SELECT c.name, pg_backend_pid(), c.n FROM (SELECT count(*) AS k FROM claimed cl WHERE cl.was_queued) q
              CROSS JOIN LATERAL (VALUES ('runs:queued', -q.k), ('runs:running', q.k)) AS c(name, n) WHERE q.k > 0
            ON CONFLICT (name, shard) DO UPDATE SET n = store_counts.n + EXCLUDED.n)
          SELECT cl.id, cl.status, cl.agent_id, cl.name, cl.session_key, cl.message, cl.action, cl.reply, cl.error, cl.created_at, cl.started_at,
            cl.finished_at, cl.rerun_of, cl.model, cl.not_before, cl.waited_for, cl.coalesced, cl.turn_state, cl.trace_context, cl.seq, cl.behind
          FROM claimed cl;
      END $$;
      CREATE FUNCTION herald_complete_runs_and_claim(p_batch JSONB)
      RETURNS TABLE (n INT, finished BOOLEAN, id TEXT, status TEXT, agent_id TEXT, name TEXT, session_key TEXT, message TEXT, action JSONB,
        reply TEXT, error TEXT, created_at BIGINT, started_at BIGINT, finished_at BIGINT, rerun_of TEXT, model TEXT, not_before BIGINT,
        waited_for TEXT, coalesced JSONB, turn_state JSONB, trace_context TEXT, seq BIGINT, behind BOOLEAN)
      LANGUAGE plpgsql SET search_path FROM CURRENT SET plan_cache_mode = force_generic_plan
        SET herald.runs_counted = 'by_caller' SET herald.event_inserts_counted = 'by_caller' AS $$
      #variable_conflict use_column
      DECLARE
        c JSONB;
        i INT := 0;
        v_session TEXT;
        v_done INT[] := '{}';
        v_done_sessions TEXT[] := '{}';
        v_refused INT[] := '{}';
        v_queues TEXT[] := '{}';
        v_maxes INT[] := '{}';
        v_prev_text TEXT;
        v_prev_live BOOLEAN;
        v_last JSONB;
        v_from TEXT;
        v_moves TEXT[] := '{}';
        v_events INT := 0;
      BEGIN
        FOR c IN SELECT e.value FROM jsonb_array_elements(p_batch) WITH ORDINALITY AS e(value, o) ORDER BY e.o LOOP
          i := i + 1;
          -- the status it leaves, for the counts: a completion ends a running run but for a rare
          -- one (its lease lost and the run given back to the queue), so that is tried first
          FOREACH v_from IN ARRAY ARRAY['running', 'queued'] LOOP
            UPDATE runs SET status = c->>'status', reply = c->>'reply', error = c->>'error', finished_at = (c->>'at')::bigint,
              model = c->>'model', lease_owner = NULL, lease_until = NULL
            WHERE runs.id = c->>'id' AND runs.status = v_from AND NOT runs.waiting
            RETURNING runs.session_key INTO v_session;
            EXIT WHEN FOUND;
          END LOOP;
          -- (FOUND says the loop ran, not that a row was: the row's session says it)
          IF v_session IS NULL THEN
            v_refused := v_refused || i;
            CONTINUE;
          END IF;
          v_moves := v_moves || v_from || (c->>'status');
          v_done := v_done || i;
          v_done_sessions := v_done_sessions || v_session;
          v_last := c;
          SELECT e.text, e.status IN ('pending', 'processing') INTO v_prev_text, v_prev_live
            FROM events e WHERE e.session = c->>'summarySession' ORDER BY e.created_at DESC, e.id DESC LIMIT 1;
          IF NOT (FOUND AND v_prev_live AND v_prev_text = c->>'summaryText') THEN
            INSERT INTO events (session, text, status, created_at, untrusted)
              VALUES (c->>'summarySession', c->>'summaryText', 'pending', (c->>'now')::bigint, (c->>'untrusted')::boolean);
            v_events := v_events + 1;
          END IF;
          IF NOT EXISTS (SELECT 1 FROM unnest(v_queues, v_maxes) AS q(s, m) WHERE q.s = c->>'summarySession' AND q.m = (c->>'maxPending')::int) THEN
            v_queues := v_queues || (c->>'summarySession');
            v_maxes := v_maxes || (c->>'maxPending')::int;
          END IF;
        END LOOP;
        IF array_length(v_done, 1) IS NOT NULL THEN
          INSERT INTO session_messages (session_key, role, content, run_id, meta, created_at)
            SELECT d.session, m.value->>'role', m.value->>'content', m.value->>'runId', NULLIF(m.value->'meta', 'null'::jsonb), (m.value->>'createdAt')::bigint
            FROM unnest(v_done, v_done_sessions) WITH ORDINALITY AS d(n, session, k)
            CROSS JOIN LATERAL jsonb_array_elements(p_batch->(d.n - 1)->'messages') WITH ORDINALITY AS m(value, o)
            ORDER BY d.k, m.o;
          FOR k IN 1 .. array_length(v_queues, 1) LOOP
            PERFORM herald_drop_overflow(v_queues[k], v_maxes[k]);
          END LOOP;
        END IF;
        -- each status a run left counts one fewer, each entered one more (a completion enters no
        -- counted one), and each summary event inserted one more pending
        INSERT INTO store_counts (name, shard, n)
          SELECT c.name, pg_backend_pid(), sum(c.n) FROM (
            SELECT 'runs:' || m.status AS name, CASE WHEN m.o % 2 = 1 THEN -1 ELSE 1 END AS n
            FROM unnest(v_moves) WITH ORDINALITY AS m(status, o) WHERE m.status IN ('queued', 'running')
            UNION ALL SELECT 'events:pending', v_events WHERE v_events > 0) c
          GROUP BY c.name
        ON CONFLICT (name, shard) DO UPDATE SET n = store_counts.n + EXCLUDED.n;
        RETURN QUERY
          WITH claimed AS (
            SELECT cl.*, row_number() OVER (ORDER BY cl.seq) AS k
            FROM herald_claim_runs(v_last->>'owner', (v_last->>'claimNow')::bigint, (v_last->>'until')::bigint, COALESCE(array_length(v_done, 1), 0)) cl
            WHERE v_last IS NOT NULL)
          SELECT d.n, true, cl.id, cl.status, cl.agent_id, cl.name, cl.session_key, cl.message, cl.action, cl.reply, cl.error,
            cl.created_at, cl.started_at, cl.finished_at, cl.rerun_of, cl.model, cl.not_before, cl.waited_for, cl.coalesced, cl.turn_state, cl.trace_context, cl.seq, cl.behind
          FROM unnest(v_done) WITH ORDINALITY AS d(n, k) LEFT JOIN claimed cl ON cl.k = d.k
          UNION ALL
          SELECT r.n, false, NULL, NULL, NULL, NULL, NULL, NULL, NULL::jsonb, NULL, NULL, NULL::bigint, NULL::bigint, NULL::bigint, NULL, NULL,
            NULL::bigint, NULL, NULL::jsonb, NULL::jsonb, NULL, NULL::bigint, NULL::boolean
          FROM unnest(v_refused) AS r(n);
      END $$;
    `,
  },
  {
    version: 39,
    name: "receipts: where and why a request's mapping failed, as SQLite migration 44",
    sql: `
      ALTER TABLE receipts ADD COLUMN failure TEXT;
    `,
  },
  {
    version: 40,
    name: "deliveries: a final row keeps no one-reply credential, as SQLite migration 45",
    sql: `
      UPDATE deliveries SET recipient = substr(recipient, 1, strpos(recipient, '#token=') + 6) || '…'
        WHERE status IN ('delivered', 'failed', 'abandoned') AND strpos(recipient, '#token=') > 0;
    `,
  },
  {
    version: 41,
    name: 'tool questions: what an MCP server asked a person during a call (elicitation), as SQLite migration 46',
    sql: `
      CREATE TABLE tool_questions (
        id TEXT PRIMARY KEY,
        tool_call_id TEXT NOT NULL,
        owner_kind TEXT NOT NULL,
        owner_id TEXT NOT NULL,
        agent_id TEXT NOT NULL,
        server TEXT NOT NULL,
        mode TEXT NOT NULL,
        message TEXT NOT NULL,
        requested_schema JSONB,
        url TEXT,
        status TEXT NOT NULL,
        content JSONB,
        answered_by TEXT,
        created_at BIGINT NOT NULL,
        expires_at BIGINT NOT NULL,
        answered_at BIGINT
      );
      CREATE INDEX tool_questions_pending ON tool_questions (created_at) WHERE status = 'pending';
    `,
  },
];
