/**
 * Versioned migrations of the PostgreSQL adapter, applied in order in one transaction under an
 * advisory lock (replicas starting together migrate once), recorded in `herald_migrations` of the deployment's schema. Never edit a migration that has
 * shipped: add the next one, at the end. The numbering is this adapter's own (SQLite has its own list).
 *
 * They hold tables, columns, indexes and the rows they move, never a function or trigger: those
 * are defined once, as they are now, in definitions/ (listed in definitions.ts), and migrate()
 * applies them after these. A migration runs on bare tables: no trigger fires on the rows it moves.
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
      -- its functions and triggers are now kept as their current definition (definitions/)
    `,
  },
  {
    version: 11,
    name: 'operator: session summaries kept once per statement (a turn), not once per message',
    sql: `
      -- its functions and triggers are now kept as their current definition (definitions/)
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
      -- its functions and triggers are now kept as their current definition (definitions/)
    `,
  },
  {
    version: 20,
    name: "runs: a completion and the claim after it in one call, the summary event last (the main session's lock held for the commit only)",
    sql: `
      -- its functions and triggers are now kept as their current definition (definitions/)
    `,
  },
  {
    version: 21,
    name: 'runs: the claim walks runs_ready in seq order whatever the statistics say (one function, which the completion calls too)',
    sql: `
      -- its functions and triggers are now kept as their current definition (definitions/)
    `,
  },
  {
    version: 22,
    name: 'events: counted once per statement (transition tables), not once per row',
    sql: `
      -- its functions and triggers are now kept as their current definition (definitions/)
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
      -- its functions and triggers are now kept as their current definition (definitions/)
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
      -- its functions and triggers are now kept as their current definition (definitions/)
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
      -- its functions and triggers are now kept as their current definition (definitions/)
    `,
  },
  {
    version: 34,
    name: 'scale: whether a governed run is unfinished read from runs_governed however the table has grown since the question was first planned',
    sql: `
      -- its functions and triggers are now kept as their current definition (definitions/)
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
  {
    version: 42,
    name: "tool calls: a result's other content summarized, and the task a call became at its server, as SQLite migration 47",
    sql: `
      ALTER TABLE tool_calls ADD COLUMN content JSONB;
      ALTER TABLE tool_calls ADD COLUMN task JSONB;
    `,
  },
  {
    version: 43,
    name: 'tool calls: the lease of a call with no run to resume it (an MCP client\'s), as SQLite migration 52',
    sql: `
      ALTER TABLE tool_calls ADD COLUMN lease_owner TEXT;
      ALTER TABLE tool_calls ADD COLUMN lease_until BIGINT;
      CREATE INDEX tool_calls_leased ON tool_calls (lease_owner) WHERE status = 'running' AND lease_owner IS NOT NULL;
    `,
  },
  {
    version: 44,
    name: "usage: what a key or agent with a budget spent kept per UTC day (usage_totals), in place of two indexes every call wrote, as SQLite migration 53",
    sql: `
      -- budgets summed a key's or agent's rows since the start of its day or month through
      -- usage_key and usage_agent: every usage row wrote an entry in each, budget or none. A day's
      -- totals are kept for the keys and agents a budget asked about (usage_tracked: from which
      -- day), in the statement of the rows they count; a row of anyone else writes only itself. The
      -- first question about someone sums their days from the rows once (postgres/usage-totals.ts)
      CREATE TABLE usage_totals (
        whom TEXT NOT NULL,
        day BIGINT NOT NULL,
        tokens BIGINT NOT NULL,
        cost DOUBLE PRECISION NOT NULL,
        settled_tokens BIGINT NOT NULL,
        settled_cost DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (whom, day)
      );
      CREATE TABLE usage_tracked (
        whom TEXT PRIMARY KEY,
        since BIGINT NOT NULL
      );
      DROP INDEX usage_key;
      DROP INDEX usage_agent;
    `,
  },
  {
    version: 45,
    name: "runs: a session's unfinished runs indexed with those waiting for approval, as every run's insert, end and claim behind read them",
    sql: `
      -- since migration 35 a run waiting for approval is unfinished, and the insert's trigger
      -- (herald_run_inserted), the end's (herald_run_ended) and the claim of the runs behind ask
      -- for status IN ('queued', 'running', 'waiting_approval'): runs_session_unfinished, of two
      -- statuses, could not answer that, so each of them read the whole table (a run's insert
      -- cost grew with every run ever stored). A query of the two statuses still reads this index
      DROP INDEX runs_session_unfinished;
      CREATE INDEX runs_session_unfinished ON runs (session_key, seq) WHERE status IN ('queued', 'running', 'waiting_approval');
    `,
  },
  {
    version: 46,
    name: "deliveries: a run's fallback deliveries indexed by their run, as a run's deliveries are read before its reply is queued",
    sql: `
      -- since migration 13 deliveries_one_per_run holds a run's first delivery only (fallback_of
      -- IS NULL) and no other index holds run_id: a run's deliveries (run_id = $1: asked before
      -- every run's reply is queued, and at every delivery change while a run's report waits for
      -- its first attempt) read the whole deliveries table. Its fallbacks, a row per failed delivery
      -- that had one, are indexed here; the query asks for the first and the fallbacks apart
      -- (deliveries-repo.ts, DELIVERIES_OF_RUN), each from its index
      CREATE INDEX deliveries_fallback_run ON deliveries (run_id) WHERE fallback_of IS NOT NULL AND run_id IS NOT NULL;
    `,
  },
  {
    version: 47,
    name: 'receipts: the receipts retaining a payload indexed by until when, as every retention pass reads them',
    sql: `
      -- every retention pass (at start, then every hooks.retention.pruneEveryMinutes, on every
      -- replica) clears retained_until of the receipts whose payload is gone (receipts-repo.ts,
      -- CLEAR_RETAINED): no index held retained_until, so each pass read the whole receipts table,
      -- receiptDays of requests. Only a receipt retaining a payload has an entry; the pass's
      -- clearing, no longer a HOT update, writes the receipt's index entries once, for those alone
      CREATE INDEX receipts_retained ON receipts (retained_until) WHERE retained_until IS NOT NULL;
    `,
  },
  {
    version: 48,
    name: 'idempotency: the keys in progress indexed, as every start reads them (SQLite 56)',
    sql: `
      -- a start recovers the keys whose request was being worked on when the last process stopped
      -- (status in_progress): no index held the status, so every start read every key kept for
      -- its TTL, a day of signed webhooks' deliveries. A key enters this index while its request
      -- is worked on and leaves it when done; a signed webhook's key, stored done with its run, never does
      CREATE INDEX idempotency_keys_in_progress ON idempotency_keys (locked_until) WHERE status = 'in_progress';
    `,
  },
];
