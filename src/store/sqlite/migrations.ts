/**
 * Versioned migrations, applied in order inside one transaction each; `user_version` records
 * the last applied. Never edit a migration that has shipped: add the next one.
 * Each area of herald owns the migrations it appends (deliveries, knowledge, keys, ...).
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** kept a session's summary (session_summaries) with each message written; migration 15 made it again over the rebuilt table, 17 dropped it */
const SESSION_MESSAGES_SUMMARISED = `CREATE TRIGGER session_messages_summarised AFTER INSERT ON session_messages BEGIN
        INSERT INTO session_summaries (key, agent_id, messages, first_at, last_at)
        VALUES (
          NEW.session_key,
          CASE WHEN NEW.session_key = 'main' THEN NULL ELSE COALESCE(json_extract(NEW.meta, '$.agentId'), (SELECT agent_id FROM runs WHERE id = NEW.run_id)) END,
          1, NEW.created_at, NEW.created_at
        )
        ON CONFLICT (key) DO UPDATE SET messages = messages + 1, first_at = MIN(first_at, excluded.first_at), last_at = MAX(last_at, excluded.last_at);
      END;`;

export const migrations: Migration[] = [
  {
    version: 1,
    name: 'core: events, runs, session messages, state',
    sql: `
      CREATE TABLE events (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        session TEXT NOT NULL,
        text TEXT NOT NULL,
        status TEXT NOT NULL,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX events_session_status ON events (session, status, id);

      CREATE TABLE runs (
        id TEXT PRIMARY KEY,
        status TEXT NOT NULL,
        agent_id TEXT NOT NULL,
        name TEXT NOT NULL,
        session_key TEXT NOT NULL,
        message TEXT NOT NULL,
        action TEXT NOT NULL,
        reply TEXT,
        error TEXT,
        created_at INTEGER NOT NULL,
        started_at INTEGER,
        finished_at INTEGER
      );
      CREATE INDEX runs_unfinished ON runs (status, created_at) WHERE status IN ('queued', 'running');

      CREATE TABLE session_messages (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        session_key TEXT NOT NULL,
        role TEXT NOT NULL,
        content TEXT NOT NULL,
        run_id TEXT,
        meta TEXT,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX session_messages_key ON session_messages (session_key, id);

      CREATE TABLE state (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL,
        updated_at INTEGER NOT NULL
      );
    `,
  },
  {
    version: 2,
    name: 'deliveries: the durable outbox of replies to chat channels',
    sql: `
      CREATE TABLE deliveries (
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
        next_attempt_at INTEGER NOT NULL,
        lease_owner TEXT,
        lease_until INTEGER,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        delivered_at INTEGER
      );
      CREATE INDEX deliveries_due ON deliveries (status, next_attempt_at) WHERE status IN ('pending', 'sending');
      CREATE INDEX deliveries_run ON deliveries (run_id);
      CREATE INDEX deliveries_created ON deliveries (created_at);
    `,
  },
  {
    version: 3,
    name: 'knowledge: documents and chunks (FTS5 tables per agent are created on first upload)',
    sql: `
      CREATE TABLE knowledge_documents (
        id TEXT PRIMARY KEY,
        agent_id TEXT NOT NULL,
        filename TEXT NOT NULL,
        bytes INTEGER NOT NULL,
        mime_type TEXT NOT NULL,
        sha256 TEXT NOT NULL,
        status TEXT NOT NULL,
        chunk_count INTEGER NOT NULL,
        metadata TEXT,
        created_at INTEGER NOT NULL,
        UNIQUE (agent_id, sha256)
      );
      CREATE INDEX knowledge_documents_agent ON knowledge_documents (agent_id, created_at);

      CREATE TABLE knowledge_chunks (
        rowid INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        document_id TEXT NOT NULL REFERENCES knowledge_documents (id) ON DELETE CASCADE,
        agent_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        content TEXT NOT NULL
      );
      CREATE INDEX knowledge_chunks_document ON knowledge_chunks (document_id, seq);

      -- the full-text index is one contentless FTS5 table per agent (knowledge_fts_<hex of the agent id>),
      -- created by KnowledgeIndex on the agent's first upload: bm25 statistics then describe that
      -- agent's documents only, and a search reads no other agent's postings
    `,
  },
  {
    version: 4,
    name: 'platform: API keys created by `herald keys create` (sha256 only, never the key)',
    sql: `
      CREATE TABLE api_keys (
        name TEXT PRIMARY KEY,
        key_hash TEXT NOT NULL UNIQUE,
        agents TEXT,
        created_at INTEGER NOT NULL
      );
    `,
  },
  {
    version: 5,
    name: "events: index the session's newest event (the duplicate check runs on every event)",
    sql: `
      CREATE INDEX events_session_id ON events (session, id);
    `,
  },
  {
    version: 6,
    name: 'hooks: Idempotency-Key records (the stored response a repeated request gets again)',
    sql: `
      CREATE TABLE idempotency_keys (
        scope TEXT NOT NULL,
        key TEXT NOT NULL,
        request_hash TEXT NOT NULL,
        status TEXT NOT NULL,
        run_id TEXT NOT NULL,
        response_status INTEGER,
        response_body TEXT,
        created_at INTEGER NOT NULL,
        locked_until INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        PRIMARY KEY (scope, key)
      );
      CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);
    `,
  },
  {
    version: 7,
    name: 'metrics: index deliveries by status (a scrape counts them from the index, never reading the texts)',
    sql: `
      CREATE INDEX deliveries_status ON deliveries (status);
    `,
  },
  {
    version: 8,
    name: 'replicas: leases on claimed runs and events (a crashed process\'s work is retaken when its lease runs out)',
    sql: `
      ALTER TABLE runs ADD COLUMN lease_owner TEXT;
      ALTER TABLE runs ADD COLUMN lease_until INTEGER;
      ALTER TABLE events ADD COLUMN lease_owner TEXT;
      ALTER TABLE events ADD COLUMN lease_until INTEGER;
      -- the claim asks, per candidate run, whether an older run of its session is unfinished
      CREATE INDEX runs_session_unfinished ON runs (session_key) WHERE status IN ('queued', 'running');
    `,
  },
  {
    version: 9,
    name: "runs: `deliver` as a column (the outbox's recovery query read it out of the action's JSON)",
    sql: `
      ALTER TABLE runs ADD COLUMN deliver INTEGER NOT NULL DEFAULT 1;
      UPDATE runs SET deliver = 0 WHERE json_extract(action, '$.deliver') IS 0;
    `,
  },
  {
    version: 10,
    name: 'operator: receipts of webhook requests, retained payloads, re-run links',
    sql: `
      CREATE TABLE receipts (
        id TEXT PRIMARY KEY,
        request_id TEXT NOT NULL,
        received_at INTEGER NOT NULL,
        method TEXT NOT NULL,
        path TEXT NOT NULL,
        mapping_id TEXT,
        status INTEGER NOT NULL,
        outcome TEXT NOT NULL,
        error_code TEXT,
        run_id TEXT,
        event_id INTEGER,
        idempotency_key TEXT,
        auth_method TEXT NOT NULL,
        signature TEXT,
        client_address TEXT,
        body_bytes INTEGER NOT NULL,
        latency_ms REAL NOT NULL,
        replay_of TEXT,
        retained_until INTEGER
      );
      CREATE INDEX receipts_received ON receipts (received_at, id);
      CREATE INDEX receipts_path ON receipts (path, received_at);
      CREATE INDEX receipts_mapping ON receipts (mapping_id, received_at);
      CREATE INDEX receipts_run ON receipts (run_id);

      CREATE TABLE retained_payloads (
        receipt_id TEXT PRIMARY KEY REFERENCES receipts (id) ON DELETE CASCADE,
        path TEXT NOT NULL,
        body BLOB NOT NULL,
        bytes INTEGER NOT NULL,
        headers TEXT NOT NULL,
        query TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL
      );
      CREATE INDEX retained_payloads_path ON retained_payloads (path, created_at);
      CREATE INDEX retained_payloads_expiry ON retained_payloads (expires_at);

      ALTER TABLE runs ADD COLUMN rerun_of TEXT;
      CREATE INDEX runs_created ON runs (created_at, id);
      CREATE INDEX deliveries_created_id ON deliveries (created_at, id);
    `,
  },
  {
    version: 11,
    name: 'runs: the model that answered (the primary or the fallback that took over)',
    sql: `
      ALTER TABLE runs ADD COLUMN model TEXT;
    `,
  },
  {
    version: 12,
    name: 'scale: counts kept by triggers (/metrics reads rows, not tables), waiting runs flagged (a claim reads ready runs only), an index for start-up',
    sql: `
      -- what /metrics reports, kept exact by triggers in the same transaction as the rows they
      -- count (a crash keeps both or neither): a scrape reads these rows instead of counting
      -- tables of millions. A status with no row here (runs:succeeded) is not counted: the
      -- trigger's UPDATE finds nothing to change.
      CREATE TABLE store_counts (name TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID;
      INSERT INTO store_counts (name, n) VALUES
        ('runs:queued', 0), ('runs:running', 0), ('events:pending', 0), ('events:dropped', 0),
        ('deliveries:pending', 0), ('deliveries:sending', 0), ('deliveries:delivered', 0), ('deliveries:failed', 0), ('deliveries:abandoned', 0),
        ('knowledge:documents', 0), ('knowledge:chunks', 0);
      UPDATE store_counts SET n = c.n FROM (
        SELECT 'runs:' || status AS name, COUNT(*) AS n FROM runs WHERE status IN ('queued', 'running') GROUP BY status
        UNION ALL SELECT 'events:' || status, COUNT(*) FROM events WHERE status IN ('pending', 'dropped') GROUP BY status
        UNION ALL SELECT 'deliveries:' || status, COUNT(*) FROM deliveries GROUP BY status
        UNION ALL SELECT 'knowledge:documents', COUNT(*) FROM knowledge_documents
        UNION ALL SELECT 'knowledge:chunks', COUNT(*) FROM knowledge_chunks
      ) AS c WHERE store_counts.name = c.name;
${countedTriggers('runs')}
${countedTriggers('events')}
${countedTriggers('deliveries')}
      CREATE TRIGGER knowledge_documents_counted_insert AFTER INSERT ON knowledge_documents BEGIN
        UPDATE store_counts SET n = n + 1 WHERE name = 'knowledge:documents';
      END;
      CREATE TRIGGER knowledge_documents_counted_delete AFTER DELETE ON knowledge_documents BEGIN
        UPDATE store_counts SET n = n - 1 WHERE name = 'knowledge:documents';
      END;
      -- chunks deleted by their document's ON DELETE CASCADE fire this too
      CREATE TRIGGER knowledge_chunks_counted_insert AFTER INSERT ON knowledge_chunks BEGIN
        UPDATE store_counts SET n = n + 1 WHERE name = 'knowledge:chunks';
      END;
      CREATE TRIGGER knowledge_chunks_counted_delete AFTER DELETE ON knowledge_chunks BEGIN
        UPDATE store_counts SET n = n - 1 WHERE name = 'knowledge:chunks';
      END;

      -- A session's runs go one at a time, in order: every unfinished run but the oldest of its
      -- session waits. The claim used to find the ready ones by asking, of every unfinished run,
      -- whether an older one of its session was unfinished, and sorted them all: each claim read
      -- every waiting run (the drain of a busy session was quadratic). Now a run inserted behind
      -- another is flagged waiting, the oldest one's end releases the next, and a claim reads
      -- the ready runs only, in order, from runs_ready.
      ALTER TABLE runs ADD COLUMN waiting INTEGER NOT NULL DEFAULT 0;
      UPDATE runs SET waiting = 1 WHERE status IN ('queued', 'running')
        AND EXISTS (SELECT 1 FROM runs p WHERE p.session_key = runs.session_key AND p.status IN ('queued', 'running') AND p.rowid < runs.rowid);
      CREATE INDEX runs_ready ON runs (waiting) WHERE waiting = 0 AND status IN ('queued', 'running');
      CREATE TRIGGER runs_wait_behind AFTER INSERT ON runs
        WHEN NEW.status IN ('queued', 'running')
          AND EXISTS (SELECT 1 FROM runs p WHERE p.session_key = NEW.session_key AND p.status IN ('queued', 'running') AND p.rowid < NEW.rowid)
      BEGIN
        UPDATE runs SET waiting = 1 WHERE rowid = NEW.rowid;
      END;
      CREATE TRIGGER runs_release_next AFTER UPDATE OF status ON runs
        WHEN OLD.status IN ('queued', 'running') AND NEW.status NOT IN ('queued', 'running') AND OLD.waiting = 0
      BEGIN
        UPDATE runs SET waiting = 0 WHERE rowid =
          (SELECT rowid FROM runs WHERE session_key = OLD.session_key AND status IN ('queued', 'running') ORDER BY rowid LIMIT 1);
      END;

      -- start-up looks for replies left behind among the succeeded runs wanting delivery that
      -- finished since the previous start (a range of this index), not among every run stored
      CREATE INDEX runs_to_deliver ON runs (finished_at) WHERE status = 'succeeded' AND deliver = 1 AND reply IS NOT NULL;
    `,
  },
  {
    version: 13,
    name: 'knowledge: chunks keep their index form (segmented, stemmed terms) and an optional embedding',
    sql: `
      -- the per-agent FTS5 tables become knowledge_terms_<hex of the agent id>, over the index form
      -- knowledge/ makes (CJK segmented, English stemmed); chunks stored before have terms NULL and
      -- are indexed again at start (KnowledgeIndex.upgrade), which then drops the old knowledge_fts_<hex> tables
      ALTER TABLE knowledge_chunks ADD COLUMN terms TEXT;
      CREATE INDEX knowledge_chunks_unindexed ON knowledge_chunks (rowid) WHERE terms IS NULL;
      -- float32 vectors from platform.knowledge.embeddings, and the model that made them
      ALTER TABLE knowledge_chunks ADD COLUMN embedding BLOB;
      ALTER TABLE knowledge_documents ADD COLUMN embedding_model TEXT;
    `,
  },
  {
    version: 14,
    name: 'operator: the admin lists filtered without a scan (runs by mapping, session and status; events; receipts by status; deliveries by channel; session summaries)',
    sql: `
      -- each admin list filter walks one of these newest first, (filter, time, id), and stops after a page.
      -- runs?mapping= scanned the runs and read every receipt of the mapping; the expression is the one browse-filters.ts writes
      CREATE INDEX runs_mapping ON runs (json_extract(action, '$.source.mappingId'), created_at, id);
      CREATE INDEX runs_session ON runs (session_key, created_at, id);
      CREATE INDEX runs_status ON runs (status, created_at, id);
      CREATE INDEX receipts_status ON receipts (status, received_at, id);
      CREATE INDEX events_created ON events (created_at, id);
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
        first_at INTEGER NOT NULL,
        last_at INTEGER NOT NULL
      ) WITHOUT ROWID;
      INSERT INTO session_summaries (key, agent_id, messages, first_at, last_at)
        SELECT s.key, CASE WHEN s.key = 'main' THEN NULL ELSE COALESCE(json_extract(m.meta, '$.agentId'), r.agent_id) END, s.messages, s.first_at, s.last_at
        FROM (SELECT session_key AS key, COUNT(*) AS messages, MIN(created_at) AS first_at, MAX(created_at) AS last_at, MIN(id) AS first_id
              FROM session_messages GROUP BY session_key) s
        JOIN session_messages m ON m.id = s.first_id
        LEFT JOIN runs r ON r.id = m.run_id;
      CREATE INDEX session_summaries_last ON session_summaries (last_at, key);
      CREATE INDEX session_summaries_agent ON session_summaries (agent_id, last_at, key);
      ${SESSION_MESSAGES_SUMMARISED}
    `,
  },
  {
    version: 15,
    name: 'operator: session summaries cheaper to keep (a rowid table, one index by last activity)',
    sql: `
      -- every message moves its session's last_at: with the summaries WITHOUT ROWID, an index by agent
      -- and the key in the index by time, the trigger cost a turn more than the messages themselves.
      -- ?agent= walks the index by time and reads each summary's agent; ties of last_at are sorted by key
      DROP TRIGGER session_messages_summarised;
      CREATE TABLE session_summaries_kept (
        key TEXT PRIMARY KEY,
        agent_id TEXT,
        messages INTEGER NOT NULL,
        first_at INTEGER NOT NULL,
        last_at INTEGER NOT NULL
      );
      INSERT INTO session_summaries_kept (key, agent_id, messages, first_at, last_at) SELECT key, agent_id, messages, first_at, last_at FROM session_summaries;
      DROP TABLE session_summaries;
      ALTER TABLE session_summaries_kept RENAME TO session_summaries;
      CREATE INDEX session_summaries_last ON session_summaries (last_at);
      ${SESSION_MESSAGES_SUMMARISED}
    `,
  },
  {
    version: 16,
    name: 'runs: runs_unfinished dropped (runs_status answers what it did; every run wrote it three times)',
    sql: `
      -- the claim reads runs_ready, a session's unfinished runs come from runs_session_unfinished,
      -- and counting the unfinished runs by status reads runs_status (status, created_at, id) as well;
      -- nothing needed runs_unfinished, and each run added, moved and removed an entry of it
      DROP INDEX runs_unfinished;
    `,
  },
  {
    version: 17,
    name: 'operator: session summaries kept once per turn written (by the sessions repo), not once per message',
    sql: `
      -- the row trigger upserted a session's summary for each message: twice for a run's turn,
      -- each rewriting the row and its session_summaries_last entry. The appenders of
      -- sessions-repo.ts now upsert once per INSERT, by the same rule, in the same transaction
      DROP TRIGGER session_messages_summarised;
    `,
  },
  {
    version: 18,
    name: 'operator: runs_status over finished runs only, receipts_run over the requests that started a run',
    sql: `
      -- runs_status held every run under its status, so each run wrote it five times (in as queued,
      -- moved to running, moved to its end). It holds the finished runs now, written once each; a list
      -- of queued or running runs reads them from runs_session_unfinished (the unfinished ones only,
      -- few but in a backlog) and sorts them. The filter states each partial index's condition
      -- (browse-filters.ts): SQLite uses a partial index only for a query that states it
      DROP INDEX runs_status;
      CREATE INDEX runs_status ON runs (status, created_at, id) WHERE status NOT IN ('queued', 'running');
      -- a request that started no run (a wake, a refusal) had an entry under NULL; run_id = ? implies the condition
      DROP INDEX receipts_run;
      CREATE INDEX receipts_run ON receipts (run_id) WHERE run_id IS NOT NULL;
    `,
  },
  {
    version: 19,
    name: 'operator: the mapping of a run kept in a column (runs_mapping over the column, not over its action JSON)',
    sql: `
      -- an index over json_extract(action, ...) parsed each run's action at its insert (2 µs of the
      -- 16 an insert cost); the mapping never changes after, so it is written once, beside the action.
      -- Every run stored is given its mapping here, once (a write per run: a large store takes a while)
      DROP INDEX runs_mapping;
      ALTER TABLE runs ADD COLUMN mapping_id TEXT;
      UPDATE runs SET mapping_id = json_extract(action, '$.source.mappingId');
      CREATE INDEX runs_mapping ON runs (mapping_id, created_at, id);
    `,
  },
  {
    version: 20,
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
        notified INTEGER NOT NULL,
        raised_at INTEGER NOT NULL,
        resolved_at INTEGER,
        raised_queued_at INTEGER,
        resolved_queued_at INTEGER
      );
      -- the store decides who alerts: one open incident per key, whichever process raises it first
      CREATE UNIQUE INDEX alerts_open_incident ON alerts (incident_key) WHERE status = 'open';
      CREATE INDEX alerts_cooldown ON alerts (cooldown_key, raised_at) WHERE notified;
      CREATE INDEX alerts_raised ON alerts (raised_at, id);
    `,
  },
  {
    version: 21,
    name: 'deliveries: a fallback delivery names the one it replaces; an operator retry is dated (delivery policy)',
    sql: `
      ALTER TABLE deliveries ADD COLUMN fallback_of TEXT;
      ALTER TABLE deliveries ADD COLUMN retried_at INTEGER;
      -- at most one fallback per failed delivery, whichever process records its failure
      CREATE UNIQUE INDEX deliveries_fallback_of ON deliveries (fallback_of) WHERE fallback_of IS NOT NULL;
    `,
  },
  {
    version: 22,
    name: "traffic: a mapping's runs held back by its concurrency, rate and coalescing window",
    sql: `
      -- set only on the runs of a governed mapping (admitted by RunsRepo.admit); NULL elsewhere, so
      -- the partial indexes below hold governed runs only and cost an ungoverned deployment nothing.
      -- not_before: claimable from then on (a rate's slot, a coalescing window's end); concurrency:
      -- the mapping's limit when it was admitted; waited_for: why it was held back; rate_slot: when
      -- the rate counts it as started; coalesce_key and coalesced: its key and the events' messages
      ALTER TABLE runs ADD COLUMN not_before INTEGER;
      ALTER TABLE runs ADD COLUMN concurrency INTEGER;
      ALTER TABLE runs ADD COLUMN waited_for TEXT;
      ALTER TABLE runs ADD COLUMN rate_slot INTEGER;
      ALTER TABLE runs ADD COLUMN coalesce_key TEXT;
      ALTER TABLE runs ADD COLUMN coalesced TEXT;
      CREATE INDEX runs_rate ON runs (mapping_id, rate_slot) WHERE rate_slot IS NOT NULL;
      CREATE INDEX runs_coalescing ON runs (mapping_id, coalesce_key) WHERE coalesce_key IS NOT NULL AND status = 'queued';
      CREATE INDEX runs_governed ON runs (mapping_id, status) WHERE concurrency IS NOT NULL AND status IN ('queued', 'running');
    `,
  },
  {
    version: 23,
    name: 'events: the summary of a run over outside content is flagged untrusted (the summary text stays as OpenClaw words it)',
    sql: `
      -- 1: the run read outside content without allowUnsafeExternalContent; the heartbeat reads it as data
      ALTER TABLE events ADD COLUMN untrusted INTEGER NOT NULL DEFAULT 0;
    `,
  },
  {
    version: 24,
    name: "files and vector stores: OpenAI's knowledge API over the knowledge tables",
    sql: `
      -- a file's bytes are kept for GET /v1/files/{id}/content and for adding it to vector stores
      CREATE TABLE files (
        id TEXT PRIMARY KEY,
        filename TEXT NOT NULL,
        purpose TEXT NOT NULL,
        bytes INTEGER NOT NULL,
        content BLOB NOT NULL,
        agents TEXT,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX files_created ON files (created_at, id);
      CREATE TABLE vector_stores (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        metadata TEXT,
        agents TEXT,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX vector_stores_created ON vector_stores (created_at, id);
      -- a file's chunks are a knowledge document under the vector store's owner key (document_id once completed)
      CREATE TABLE vector_store_files (
        vector_store_id TEXT NOT NULL REFERENCES vector_stores (id) ON DELETE CASCADE,
        file_id TEXT NOT NULL,
        status TEXT NOT NULL,
        last_error TEXT,
        document_id TEXT,
        bytes INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (vector_store_id, file_id)
      );
      CREATE INDEX vector_store_files_in_progress ON vector_store_files (created_at) WHERE status = 'in_progress';
    `,
  },
  {
    version: 25,
    name: 'knowledge: every chunk indexed again (Korean as syllable pairs, codes such as ERR-4012 whole and in parts)',
    sql: `
      -- the index form knowledge/ makes changed: every chunk is made unindexed, and indexed again
      -- at start (KnowledgeIndex.upgrade), which replaces its row in its agent's knowledge_terms_<hex>
      UPDATE knowledge_chunks SET terms = NULL WHERE terms IS NOT NULL;
    `,
  },
  {
    version: 26,
    name: 'usage: the tokens of every model call, by key, agent, mapping and model',
    sql: `
      CREATE TABLE usage (
        id INTEGER PRIMARY KEY,
        at INTEGER NOT NULL,
        source TEXT NOT NULL,
        model TEXT NOT NULL,
        key_name TEXT,
        agent_id TEXT,
        mapping_id TEXT,
        prompt_tokens INTEGER NOT NULL,
        completion_tokens INTEGER NOT NULL,
        total_tokens INTEGER NOT NULL,
        estimated INTEGER NOT NULL,
        cost REAL NOT NULL
      );
      -- a budget sums one key's or agent's rows since the start of its day or month
      CREATE INDEX usage_key ON usage (key_name, at) WHERE key_name IS NOT NULL;
      CREATE INDEX usage_agent ON usage (agent_id, at) WHERE agent_id IS NOT NULL;
      CREATE INDEX usage_at ON usage (at);
    `,
  },
  {
    version: 27,
    name: 'scale: the /metrics counting triggers fire only for the statuses counted (a run\'s end, an event\'s claim and its end changed no count and still ran the trigger)',
    sql: `
      -- store_counts has rows for runs queued and running and events pending and dropped only: an
      -- UPDATE into or out of another status (succeeded, processing, done) found no row to change,
      -- yet ran every time. Each trigger now fires when its UPDATE has a row to change.
      DROP TRIGGER runs_counted_insert;
      DROP TRIGGER runs_counted_update;
      DROP TRIGGER runs_counted_delete;
      DROP TRIGGER events_counted_insert;
      DROP TRIGGER events_counted_update;
      DROP TRIGGER events_counted_delete;
${countedStatusTriggers('runs', ['queued', 'running'])}
${countedStatusTriggers('events', ['pending', 'dropped'])}
    `,
  },
  {
    version: 28,
    name: "scale: the counts of runs and events kept by the group commit's writes, not by row triggers",
    sql: `
      -- a run's insert, claim and end each fired a trigger writing store_counts; the writes of the
      -- store's group commit (count-deltas.ts) now add up what they change and write it once per
      -- group, in the same transaction. A row deleted (no write of herald's does) is still counted out
      DROP TRIGGER runs_counted_insert;
      DROP TRIGGER runs_counted_leave;
      DROP TRIGGER runs_counted_enter;
      DROP TRIGGER events_counted_insert;
      DROP TRIGGER events_counted_leave;
      DROP TRIGGER events_counted_enter;
    `,
  },
  {
    version: 29,
    name: "scale: the unfinished runs' indexes keyed on finished_at IS NULL, so a claim does not rewrite their entries",
    sql: `
      -- a claim sets status (queued -> running): an index whose condition names status has its entry
      -- of each claimed run deleted and inserted again, though the run stays in it. finished_at is set
      -- when, and only when, a run leaves the unfinished statuses (its end, a cancel), so the same runs
      -- are in these indexes and a claim leaves them alone. The queries reading them say both.
      DROP INDEX runs_ready;
      CREATE INDEX runs_ready ON runs (waiting) WHERE waiting = 0 AND finished_at IS NULL;
      DROP INDEX runs_session_unfinished;
      CREATE INDEX runs_session_unfinished ON runs (session_key) WHERE finished_at IS NULL;
      DROP TRIGGER runs_wait_behind;
      CREATE TRIGGER runs_wait_behind AFTER INSERT ON runs
        WHEN NEW.status IN ('queued', 'running')
          AND EXISTS (SELECT 1 FROM runs p WHERE p.session_key = NEW.session_key AND p.finished_at IS NULL AND p.status IN ('queued', 'running') AND p.rowid < NEW.rowid)
      BEGIN
        UPDATE runs SET waiting = 1 WHERE rowid = NEW.rowid;
      END;
      DROP TRIGGER runs_release_next;
      CREATE TRIGGER runs_release_next AFTER UPDATE OF status ON runs
        WHEN OLD.status IN ('queued', 'running') AND NEW.status NOT IN ('queued', 'running') AND OLD.waiting = 0
      BEGIN
        UPDATE runs SET waiting = 0 WHERE rowid =
          (SELECT rowid FROM runs WHERE session_key = OLD.session_key AND finished_at IS NULL AND status IN ('queued', 'running') ORDER BY rowid LIMIT 1);
      END;
    `,
  },
  {
    version: 30,
    name: "scale: a session's newest events read from events_session_created; events_session_id dropped",
    sql: `
      -- two indexes led by the session, one by id and one by time, each written by every event: the
      -- newest event of a session (the duplicate check of each enqueue) and a session's list read
      -- the one by time, which the operator's lists need
      DROP INDEX events_session_id;
    `,
  },
  {
    version: 31,
    name: "sessions: session_messages without AUTOINCREMENT (every turn's insert wrote sqlite_sequence)",
    sql: `
      -- AUTOINCREMENT only keeps SQLite from giving the id of a deleted newest row again; nothing
      -- deletes messages, and their ids never leave the store (they order a session's messages,
      -- and a new one is still past every id there). Without it, an insert takes max(id) + 1 from
      -- the table's own b-tree and writes no sqlite_sequence page (DROP TABLE removed its row there)
      CREATE TABLE session_messages_plain (
        id INTEGER PRIMARY KEY,
        session_key TEXT NOT NULL,
        role TEXT NOT NULL,
        content TEXT NOT NULL,
        run_id TEXT,
        meta TEXT,
        created_at INTEGER NOT NULL
      );
      INSERT INTO session_messages_plain (id, session_key, role, content, run_id, meta, created_at)
        SELECT id, session_key, role, content, run_id, meta, created_at FROM session_messages ORDER BY id;
      DROP TABLE session_messages;
      ALTER TABLE session_messages_plain RENAME TO session_messages;
      CREATE INDEX session_messages_key ON session_messages (session_key, id);
    `,
  },
  {
    version: 32,
    name: "events: without AUTOINCREMENT (every wake's insert, and every run's summary event, wrote sqlite_sequence)",
    sql: `
      -- as session_messages (31): AUTOINCREMENT only keeps the id of a deleted newest event from
      -- being given again, and no version of herald deletes events; a new event still takes an id
      -- past every one there. Same columns, indexes and counting trigger
      CREATE TABLE events_plain (
        id INTEGER PRIMARY KEY,
        session TEXT NOT NULL,
        text TEXT NOT NULL,
        status TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        lease_owner TEXT,
        lease_until INTEGER,
        untrusted INTEGER NOT NULL DEFAULT 0
      );
      INSERT INTO events_plain (id, session, text, status, created_at, lease_owner, lease_until, untrusted)
        SELECT id, session, text, status, created_at, lease_owner, lease_until, untrusted FROM events ORDER BY id;
      DROP TABLE events;
      ALTER TABLE events_plain RENAME TO events;
      CREATE INDEX events_session_status ON events (session, status, id);
      CREATE INDEX events_created ON events (created_at, id);
      CREATE INDEX events_session_created ON events (session, created_at, id);
      CREATE TRIGGER events_counted_delete AFTER DELETE ON events WHEN OLD.status IN ('pending', 'dropped') BEGIN
        UPDATE store_counts SET n = n - 1 WHERE name = 'events:' || OLD.status;
      END;
    `,
  },
  {
    version: 33,
    name: "events: the queue's open events indexed apart, pending and processing; the handled ones out of the index",
    sql: `
      -- events_session_status served only the queue's statements, each asking for one status
      -- spelled in its SQL (the claims, the pending count, the pending ids, the overflow); the
      -- operator's lists filter a status through events_session_created or events_created. Partial,
      -- an index holds the few open events, not a session's whole history: dropping or finishing
      -- an event takes it out of one, with nothing to write in its place
      DROP INDEX events_session_status;
      CREATE INDEX events_session_pending ON events (session, id) WHERE status = 'pending';
      CREATE INDEX events_session_processing ON events (session, id) WHERE status = 'processing';
    `,
  },
  {
    version: 34,
    name: 'operator: runs_mapping and receipts_mapping over what a mapping made (a direct /hooks/agent or /hooks/wake writes neither)',
    sql: `
      -- a run or a request no mapping resolved (the direct endpoints) had an entry under NULL in
      -- each, written with every such run and request; the lists filter a mapping by
      -- mapping_id = ?, which implies the condition
      DROP INDEX runs_mapping;
      CREATE INDEX runs_mapping ON runs (mapping_id, created_at, id) WHERE mapping_id IS NOT NULL;
      DROP INDEX receipts_mapping;
      CREATE INDEX receipts_mapping ON receipts (mapping_id, received_at) WHERE mapping_id IS NOT NULL;
    `,
  },
  {
    version: 35,
    name: 'usage: a row holds the calls of one moment alike in whom they count against (calls)',
    sql: `
      -- the runs a group commit completes in one millisecond for one agent and mapping were a row
      -- each, three index entries each; they are one row now, its calls counted. A row before
      -- this migration is one call
      ALTER TABLE usage ADD COLUMN calls INTEGER NOT NULL DEFAULT 1;
    `,
  },
  {
    version: 36,
    name: 'sessions: a run lists its session as it is inserted, in the insert itself',
    sql: `
      -- what the runs repository did with a statement of its own after each insert: a session is
      -- listed from its first run on, before the run has written a message (queued, running,
      -- failed early). An upsert, not OR IGNORE: a trigger's OR clause gives way to the outer
      -- statement's (the insert's OR FAIL)
      CREATE TRIGGER runs_list_session AFTER INSERT ON runs BEGIN
        INSERT INTO session_summaries (key, agent_id, messages, first_at, last_at)
        VALUES (NEW.session_key, CASE WHEN NEW.session_key = 'main' THEN NULL ELSE NEW.agent_id END, 0, NEW.created_at, NEW.created_at)
        ON CONFLICT (key) DO NOTHING;
      END;
    `,
  },
  {
    version: 37,
    name: 'operator: receipts_failed over the failed requests (status >= 400) in place of receipts_status over all of them',
    sql: `
      -- every request wrote an entry into receipts_status, so a list of one status walked its own
      -- entries. A status that answers most requests (200, 202) is read as fast walking the
      -- receipts newest first (receipts_received) and skipping the others; the failures are few,
      -- so they keep an index, in time order, which their lists (status=404, result=error) state
      -- the condition of (receipt-filter.ts). A list of a status no receipt has reads the whole
      -- table: the price of not indexing every request (docs/performance.md gives it)
      DROP INDEX receipts_status;
      CREATE INDEX receipts_failed ON receipts (received_at, id) WHERE status >= 400;
    `,
  },
  {
    version: 38,
    name: 'operator: runs_status over the runs that did not succeed, runs_mapping and receipts_mapping without the built-in endpoints',
    sql: `
      -- Each index a request or a run writes costs a page of the WAL per group commit, whoever
      -- reads it. The succeeded runs are most runs: a list of them is read walking the runs newest
      -- first (runs_created), as a receipts list of a common status is; the failed, timed out and
      -- cancelled keep an index. The direct /hooks/agent and /hooks/wake record their built-in
      -- mapping's id ('agent', 'wake'), so every direct request and run wrote the mapping indexes;
      -- they leave them out (/hooks/wake makes no runs, so runs_mapping need not), and a list of a
      -- built-in's is read walking by time. The lists state these conditions (indexed-conditions.ts);
      -- docs/performance.md gives what a list of a rare one costs. No condition lists more than two
      -- values after IN: SQLite evaluates such a list through a temporary table it builds at every
      -- execution of a statement writing the table
      DROP INDEX runs_status;
      CREATE INDEX runs_status ON runs (status, created_at, id) WHERE status <> 'queued' AND status <> 'running' AND status <> 'succeeded';
      DROP INDEX runs_mapping;
      CREATE INDEX runs_mapping ON runs (mapping_id, created_at, id) WHERE mapping_id NOT IN ('agent');
      DROP INDEX receipts_mapping;
      CREATE INDEX receipts_mapping ON receipts (mapping_id, received_at) WHERE mapping_id NOT IN ('agent', 'wake');
    `,
  },
  {
    version: 39,
    name: "scale: a run knows whether one was inserted behind it (followed), so its end and its claim look for the next only then",
    sql: `
      -- Every run's end fired runs_release_next, whose subquery looked for the session's next
      -- unfinished run, and every claim asked the same of each ready run (its EXISTS 'followed'),
      -- though most runs have none behind them (a made-up session each, or a quiet one). A run
      -- inserted behind unfinished ones now flags the newest of them: a run with any unfinished
      -- run behind it was flagged by the first one inserted after it. The flag stays once set (the
      -- run behind may end first): then the look finds nothing, as it always did
      ALTER TABLE runs ADD COLUMN followed INTEGER NOT NULL DEFAULT 0;
      UPDATE runs SET followed = 1 WHERE finished_at IS NULL AND status IN ('queued', 'running')
        AND EXISTS (SELECT 1 FROM runs n WHERE n.session_key = runs.session_key AND n.finished_at IS NULL AND n.status IN ('queued', 'running') AND n.rowid > runs.rowid);
      DROP TRIGGER runs_wait_behind;
      CREATE TRIGGER runs_wait_behind AFTER INSERT ON runs
        WHEN NEW.status IN ('queued', 'running')
          AND EXISTS (SELECT 1 FROM runs p WHERE p.session_key = NEW.session_key AND p.finished_at IS NULL AND p.status IN ('queued', 'running') AND p.rowid < NEW.rowid)
      BEGIN
        UPDATE runs SET waiting = 1 WHERE rowid = NEW.rowid;
        UPDATE runs SET followed = 1 WHERE rowid =
          (SELECT MAX(rowid) FROM runs p WHERE p.session_key = NEW.session_key AND p.finished_at IS NULL AND p.status IN ('queued', 'running') AND p.rowid < NEW.rowid);
      END;
      DROP TRIGGER runs_release_next;
      CREATE TRIGGER runs_release_next AFTER UPDATE OF status ON runs
        WHEN OLD.followed = 1 AND OLD.status IN ('queued', 'running') AND NEW.status NOT IN ('queued', 'running') AND OLD.waiting = 0
      BEGIN
        UPDATE runs SET waiting = 0 WHERE rowid =
          (SELECT rowid FROM runs WHERE session_key = OLD.session_key AND finished_at IS NULL AND status IN ('queued', 'running') ORDER BY rowid LIMIT 1);
      END;
    `,
  },
  {
    version: 40,
    name: "tools: every tool call on the record (tool_calls), a run's turn checkpointed (turn_state), runs waiting for a person's approval",
    sql: `
      -- A run waiting for approval (waiting_approval) is unfinished: its finished_at stays NULL, so
      -- it stays in runs_ready and runs_session_unfinished, and its session's later runs wait
      -- behind it. The claim names the queue's two statuses (runs-repo.ts), so it is never claimed;
      -- the triggers that flag and release the runs behind a session's head count it as unfinished.
      -- Its end (a cancel) releases the next run; its pause (running -> waiting_approval) and its
      -- return to the queue do not. The release's WHEN names finished_at: a run's end, and only
      -- its end, sets it (migration 29), and no list of three statuses is evaluated at each update
      ALTER TABLE runs ADD COLUMN turn_state TEXT;
      INSERT INTO store_counts (name, n) VALUES ('runs:waiting_approval', 0);
      DROP TRIGGER runs_wait_behind;
      CREATE TRIGGER runs_wait_behind AFTER INSERT ON runs
        WHEN NEW.status IN ('queued', 'running')
          AND EXISTS (SELECT 1 FROM runs p WHERE p.session_key = NEW.session_key AND p.finished_at IS NULL AND (p.status IN ('queued', 'running') OR p.status = 'waiting_approval') AND p.rowid < NEW.rowid)
      BEGIN
        UPDATE runs SET waiting = 1 WHERE rowid = NEW.rowid;
        UPDATE runs SET followed = 1 WHERE rowid =
          (SELECT MAX(rowid) FROM runs p WHERE p.session_key = NEW.session_key AND p.finished_at IS NULL AND (p.status IN ('queued', 'running') OR p.status = 'waiting_approval') AND p.rowid < NEW.rowid);
      END;
      DROP TRIGGER runs_release_next;
      CREATE TRIGGER runs_release_next AFTER UPDATE OF status ON runs
        WHEN OLD.followed = 1 AND OLD.waiting = 0 AND OLD.finished_at IS NULL AND NEW.finished_at IS NOT NULL
      BEGIN
        UPDATE runs SET waiting = 0 WHERE rowid =
          (SELECT rowid FROM runs WHERE session_key = OLD.session_key AND finished_at IS NULL AND (status IN ('queued', 'running') OR status = 'waiting_approval') ORDER BY rowid LIMIT 1);
      END;

      -- every tool call, stored before it executes and again when it ends. Read by its owner (a
      -- run's, a response's or a chat turn's calls, tool_calls_owner, in rowid order: the order
      -- they were made) and, for the calls waiting for a person, from tool_calls_awaiting: few
      -- rows (each holds a paused run), so the approvals list and the expiry sweep both read it
      CREATE TABLE tool_calls (
        id TEXT PRIMARY KEY,
        call_id TEXT NOT NULL,
        owner_kind TEXT NOT NULL,
        owner_id TEXT NOT NULL,
        agent_id TEXT NOT NULL,
        mapping_id TEXT,
        key_name TEXT,
        turn INTEGER NOT NULL,
        server TEXT NOT NULL,
        tool TEXT NOT NULL,
        arguments TEXT NOT NULL,
        read_only INTEGER NOT NULL,
        status TEXT NOT NULL,
        result TEXT,
        error TEXT,
        created_at INTEGER NOT NULL,
        started_at INTEGER,
        finished_at INTEGER,
        duration_ms INTEGER,
        approval_required INTEGER NOT NULL,
        approval_expires_at INTEGER,
        approval TEXT
      );
      CREATE INDEX tool_calls_owner ON tool_calls (owner_kind, owner_id);
      CREATE INDEX tool_calls_awaiting ON tool_calls (created_at) WHERE status = 'waiting_approval' AND approval IS NULL;
    `,
  },
  {
    version: 41,
    name: 'schedules: jobs with their next due time, and one fire per job and due time',
    sql: `
      -- schedules: each job with the one due time it fires next. A fire is claimed by moving
      -- next_due from the due time it read (compare-and-set), so of any number of claimers of a
      -- due time one wins; schedule_fires keeps one row per (job, due time) as its record.
      CREATE TABLE schedules (
        id TEXT PRIMARY KEY,
        origin TEXT NOT NULL,
        job TEXT NOT NULL,
        enabled INTEGER NOT NULL,
        next_due INTEGER,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX schedules_next_due ON schedules (next_due) WHERE enabled AND next_due IS NOT NULL;
      CREATE TABLE schedule_fires (
        schedule_id TEXT NOT NULL,
        due_at INTEGER NOT NULL,
        fired_at INTEGER NOT NULL,
        outcome TEXT NOT NULL,
        run_id TEXT,
        detail TEXT,
        PRIMARY KEY (schedule_id, due_at)
      );
      CREATE INDEX schedule_fires_claimed ON schedule_fires (fired_at) WHERE outcome = 'claimed';
    `,
  },
  {
    version: 42,
    name: 'schedule fires listed across jobs, newest due first',
    sql: `
      -- the fires list of every job (the schedules' receipts) walks this index newest first
      CREATE INDEX schedule_fires_due ON schedule_fires (due_at, schedule_id);
    `,
  },
  {
    version: 43,
    name: 'traces: the trace context a run and a delivery were made in, and a receipt\'s trace id',
    sql: `
      -- the W3C traceparent of the span that made the row: a run or delivery executed later, or by
      -- another replica, joins its request's trace; null when tracing was off
      ALTER TABLE runs ADD COLUMN trace_context TEXT;
      ALTER TABLE deliveries ADD COLUMN trace_context TEXT;
      ALTER TABLE receipts ADD COLUMN trace_id TEXT;
    `,
  },
  {
    version: 44,
    name: "receipts: where and why a request's mapping failed",
    sql: `
      -- JSON of {stage, mappingId, cause, at?}: the cause with the request's values taken out; null when the mapping did not fail
      ALTER TABLE receipts ADD COLUMN failure TEXT;
    `,
  },
  {
    version: 45,
    name: "deliveries: a final row keeps no one-reply credential (Discord's interaction token)",
    sql: `
      -- what delivered, failed and abandoned now do in the write that makes a row final (recipient-scrub.ts), done once for the rows stored before
      UPDATE deliveries SET recipient = substr(recipient, 1, instr(recipient, '#token=') + 6) || '…'
        WHERE status IN ('delivered', 'failed', 'abandoned') AND instr(recipient, '#token=') > 0;
    `,
  },
  {
    version: 46,
    name: 'tool questions: what an MCP server asked a person during a call (elicitation), and the answer',
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
        requested_schema TEXT,
        url TEXT,
        status TEXT NOT NULL,
        content TEXT,
        answered_by TEXT,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        answered_at INTEGER
      );
      CREATE INDEX tool_questions_pending ON tool_questions (created_at) WHERE status = 'pending';
    `,
  },
  {
    version: 47,
    name: "tool calls: a result's other content (images, audio, resources, structured content) summarized, and the task a call became at its server",
    sql: `
      -- JSON: the parts the console shows (tool-calls-port.ts ToolResultPart), never megabytes
      ALTER TABLE tool_calls ADD COLUMN content TEXT;
      -- JSON {server, taskId, pollInterval?}: a restarted herald polls the task rather than calling again
      ALTER TABLE tool_calls ADD COLUMN task TEXT;
    `,
  },
  {
    version: 48,
    name: 'sessions: a summary is its key\'s row (WITHOUT ROWID): a new session writes two B-trees, not three',
    sql: `
      -- a rowid table kept a summary's row by rowid and its key in an index of its own: every new
      -- session (each chat completion that starts a conversation, each hook run's made-up session)
      -- wrote a page of each, and one of session_summaries_last. Keyed by its key, the row is
      -- found without the index, and the index by time holds the key (as migration 14's did)
      DROP TRIGGER runs_list_session;
      CREATE TABLE session_summaries_keyed (
        key TEXT PRIMARY KEY,
        agent_id TEXT,
        messages INTEGER NOT NULL,
        first_at INTEGER NOT NULL,
        last_at INTEGER NOT NULL
      ) WITHOUT ROWID;
      INSERT INTO session_summaries_keyed (key, agent_id, messages, first_at, last_at) SELECT key, agent_id, messages, first_at, last_at FROM session_summaries;
      DROP TABLE session_summaries;
      ALTER TABLE session_summaries_keyed RENAME TO session_summaries;
      CREATE INDEX session_summaries_last ON session_summaries (last_at);
      CREATE TRIGGER runs_list_session AFTER INSERT ON runs BEGIN
        INSERT INTO session_summaries (key, agent_id, messages, first_at, last_at)
        VALUES (NEW.session_key, CASE WHEN NEW.session_key = 'main' THEN NULL ELSE NEW.agent_id END, 0, NEW.created_at, NEW.created_at)
        ON CONFLICT (key) DO NOTHING;
      END;
    `,
  },
  {
    version: 51,
    name: "a completion's writes: a session's messages kept in its key's order (WITHOUT ROWID), a usage row's id its time (no usage_at)",
    sql: `
      -- a rowid table kept the messages in id order and session_messages_key found a session's
      -- among them: every turn wrote a page of each (a new conversation's index entry lands on a
      -- page of its own, the row on the table's last page). Keyed by (session_key, id), a
      -- session's messages are one range of the table itself: a turn writes the page its session
      -- sits on, and a history is read from consecutive rows. The ids stay as they were; a new
      -- message takes its session's largest id + 1 (sessions-repo.ts), which orders a session's
      -- messages as before (nothing reads an id across sessions)
      CREATE TABLE session_messages_keyed (
        session_key TEXT NOT NULL,
        id INTEGER NOT NULL,
        role TEXT NOT NULL,
        content TEXT NOT NULL,
        run_id TEXT,
        meta TEXT,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (session_key, id)
      ) WITHOUT ROWID;
      INSERT INTO session_messages_keyed (session_key, id, role, content, run_id, meta, created_at)
        SELECT session_key, id, role, content, run_id, meta, created_at FROM session_messages ORDER BY session_key, id;
      DROP TABLE session_messages;
      ALTER TABLE session_messages_keyed RENAME TO session_messages;

      -- a usage row wrote four B-trees: the table, usage_key and usage_agent (budgets) and usage_at
      -- (the usage report's time range). Its id now carries its time: at * 1000, or one past the
      -- largest id when that is larger (usage-repo.ts), so ids ascend with time, id >= at * 1000
      -- always, and the report reads its range from the table itself. The rows kept are given ids
      -- by the same rule, in (at, id) order: k + the largest (at * 1000 - k) among the first k rows
      CREATE TABLE usage_timed (
        id INTEGER PRIMARY KEY,
        at INTEGER NOT NULL,
        source TEXT NOT NULL,
        model TEXT NOT NULL,
        key_name TEXT,
        agent_id TEXT,
        mapping_id TEXT,
        prompt_tokens INTEGER NOT NULL,
        completion_tokens INTEGER NOT NULL,
        total_tokens INTEGER NOT NULL,
        estimated INTEGER NOT NULL,
        cost REAL NOT NULL,
        calls INTEGER NOT NULL DEFAULT 1
      );
      INSERT INTO usage_timed (id, at, source, model, key_name, agent_id, mapping_id, prompt_tokens, completion_tokens, total_tokens, estimated, cost, calls)
        SELECT k + MAX(at * 1000 - k) OVER (ORDER BY k ROWS UNBOUNDED PRECEDING), at, source, model, key_name, agent_id, mapping_id, prompt_tokens, completion_tokens, total_tokens, estimated, cost, calls
        FROM (SELECT *, ROW_NUMBER() OVER (ORDER BY at, id) AS k FROM usage) ORDER BY k;
      DROP TABLE usage;
      ALTER TABLE usage_timed RENAME TO usage;
      -- a budget sums one key's or agent's rows since the start of its day or month
      CREATE INDEX usage_key ON usage (key_name, at) WHERE key_name IS NOT NULL;
      CREATE INDEX usage_agent ON usage (agent_id, at) WHERE agent_id IS NOT NULL;
    `,
  },
  {
    version: 52,
    name: "tool calls: the lease of a call with no run to resume it (an MCP client's), written with its record",
    sql: `
      -- a governed call of /mcp was marked in flight by a state row of its own, set before it ran
      -- and deleted after: two more commits per call. The record carries its executing process and
      -- lease instead, written in the commits that insert and finish it; the index holds only the
      -- calls running under a lease (a handful), for the renewal and the sweep of dead processes'
      ALTER TABLE tool_calls ADD COLUMN lease_owner TEXT;
      ALTER TABLE tool_calls ADD COLUMN lease_until INTEGER;
      CREATE INDEX tool_calls_leased ON tool_calls (lease_owner) WHERE status = 'running' AND lease_owner IS NOT NULL;
    `,
  },
  {
    version: 53,
    name: "usage: what a key or agent with a budget spent kept per UTC day (usage_totals), in place of two indexes every call wrote",
    sql: `
      -- budgets summed a key's or agent's rows since the start of its day or month through
      -- usage_key and usage_agent: every usage row wrote a page of each, budget or none. A day's
      -- totals are kept for the keys and agents a budget asked about (usage_tracked: from which
      -- day), in the commit of the rows they count; a row of anyone else writes only itself. The
      -- first question about someone sums their days from the rows once (sqlite/usage-totals.ts)
      CREATE TABLE usage_totals (
        whom TEXT NOT NULL,
        day INTEGER NOT NULL,
        tokens INTEGER NOT NULL,
        cost REAL NOT NULL,
        settled_tokens INTEGER NOT NULL,
        settled_cost REAL NOT NULL,
        PRIMARY KEY (whom, day)
      ) WITHOUT ROWID;
      CREATE TABLE usage_tracked (
        whom TEXT PRIMARY KEY,
        since INTEGER NOT NULL
      ) WITHOUT ROWID;
      DROP INDEX usage_key;
      DROP INDEX usage_agent;
    `,
  },
  {
    version: 54,
    name: "sessions: a session's summary is the last row of its range of session_messages: a turn writes one B-tree for its messages and summary, not two",
    sql: `
      -- a session's summary was a row of session_summaries (keyed by its key) beside its messages:
      -- every turn wrote a page of each. It is now the row of its own range of session_messages
      -- whose id is 2^53 - 1, past any message's, so a turn's messages go in just before it, on
      -- the page it is on: created_at is its first_at, and agent_id, messages and last_at are set
      -- on it alone (NULL on a message). session_summaries is a view of those rows, and the list's
      -- index by time holds them only
      DROP TRIGGER runs_list_session;
      ALTER TABLE session_messages ADD COLUMN agent_id TEXT;
      ALTER TABLE session_messages ADD COLUMN messages INTEGER;
      ALTER TABLE session_messages ADD COLUMN last_at INTEGER;
      INSERT INTO session_messages (session_key, id, role, content, created_at, agent_id, messages, last_at)
        SELECT key, 9007199254740991, '', '', first_at, agent_id, messages, last_at FROM session_summaries;
      DROP TABLE session_summaries;
      CREATE INDEX session_summaries_last ON session_messages (last_at) WHERE id = 9007199254740991;
      CREATE VIEW session_summaries AS
        SELECT session_key AS key, agent_id, messages, created_at AS first_at, last_at FROM session_messages WHERE id = 9007199254740991;
      CREATE TRIGGER runs_list_session AFTER INSERT ON runs BEGIN
        INSERT INTO session_messages (session_key, id, role, content, created_at, agent_id, messages, last_at)
        VALUES (NEW.session_key, 9007199254740991, '', '', NEW.created_at, CASE WHEN NEW.session_key = 'main' THEN NULL ELSE NEW.agent_id END, 0, NEW.created_at)
        ON CONFLICT (session_key, id) DO NOTHING;
      END;
    `,
  },
  {
    version: 55,
    name: 'receipts: the receipts retaining a payload indexed by until when, as every retention pass reads them (PostgreSQL 47)',
    sql: `
      -- every retention pass (at start, then every hooks.retention.pruneEveryMinutes) clears
      -- retained_until of the receipts whose payload is gone (receipts-repo.ts, CLEAR_RETAINED): no
      -- index held retained_until, so each pass read the whole receipts table, receiptDays of
      -- requests, in the group commit's transaction. Only a receipt retaining a payload has an entry
      CREATE INDEX receipts_retained ON receipts (retained_until) WHERE retained_until IS NOT NULL;
    `,
  },
  {
    version: 56,
    name: 'idempotency: the keys in progress indexed, as every start reads them (PostgreSQL 48)',
    sql: `
      -- a start recovers the keys whose request was being worked on when the last process stopped
      -- (status in_progress): no index held the status, so every start read every key kept for
      -- its TTL, a day of signed webhooks' deliveries. A key enters this index while its request
      -- is worked on and leaves it when done; a signed webhook's key, stored done with its run, never does
      CREATE INDEX idempotency_keys_in_progress ON idempotency_keys (locked_until) WHERE status = 'in_progress';
    `,
  },
  {
    version: 57,
    name: 'runs and receipts: the lists by time read the rows keyed by their time from the primary key; the others alone are indexed by time',
    sql: `
      -- A run's id is a UUID v7 made at its created_at, a receipt's at its received_at: for those
      -- rows the primary key's order is the lists' order by time, so runs_created and
      -- receipts_received held each row a second time, a page of each written in every group
      -- commit. The rows whose id does not begin with their time (a run whose id was chosen before
      -- it was made: an Idempotency-Key's, a schedule's; an imported one) hold it in unkeyed_at,
      -- set at the insert (the test below, as time-keyed-rows.ts's unkeyedAt makes it), and only they
      -- are indexed by it; a list reads both
      ALTER TABLE runs ADD COLUMN unkeyed_at INTEGER;
      UPDATE runs SET unkeyed_at = created_at WHERE substr(id, 1, 13) <> printf('%08x-%04x', created_at / 65536, created_at % 65536);
      DROP INDEX runs_created;
      CREATE INDEX runs_created_unkeyed ON runs (unkeyed_at, id) WHERE unkeyed_at IS NOT NULL;
      ALTER TABLE receipts ADD COLUMN unkeyed_at INTEGER;
      UPDATE receipts SET unkeyed_at = received_at WHERE substr(id, 1, 13) <> printf('%08x-%04x', received_at / 65536, received_at % 65536);
      DROP INDEX receipts_received;
      CREATE INDEX receipts_received_unkeyed ON receipts (unkeyed_at, id) WHERE unkeyed_at IS NOT NULL;
    `,
  },
  {
    version: 58,
    name: 'events: the list by time reads the events made in id order from the primary key; the others alone are indexed by time',
    sql: `
      -- An event's id is the next rowid and its created_at the time it was made: an event made no
      -- earlier than every event before it sorts by id as by time, so events_created held nearly
      -- every event a second time, a page written in each group commit that added one (every run's
      -- summary event, every wake). The events made before an earlier one (a clock set back) hold
      -- their time in unkeyed_at, set at the insert (events-repo.ts), and only they are indexed by
      -- it; the list reads both (time-keyed-rows.ts)
      ALTER TABLE events ADD COLUMN unkeyed_at INTEGER;
      UPDATE events SET unkeyed_at = created_at WHERE id IN (
        SELECT id FROM (SELECT id, created_at, MAX(created_at) OVER (ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS before FROM events)
        WHERE created_at < before);
      DROP INDEX events_created;
      CREATE INDEX events_created_unkeyed ON events (unkeyed_at, id) WHERE unkeyed_at IS NOT NULL;
    `,
  },
  {
    version: 59,
    name: "runs: a made-up session's first run (its key hook:<its id>) is found by its id, not held in the session indexes",
    sql: `
      -- A run given no session (most /hooks/agent requests) is the first of a session of its own,
      -- keyed by its id (madeUpSessionKey, runs-port.ts). Held in runs_session and, while unfinished,
      -- runs_session_unfinished, it wrote a page of each for a session no other run is likely to
      -- join. The session indexes now leave out such a run
      -- while it waits for no other (waiting = 0: it is its session's head, or it was inserted
      -- behind nothing); who looks for it there finds it by its id instead: the insert of a run
      -- behind it (runs_wait_behind) and the runs list by session (browse-repo.ts). Behind another
      -- run (a key someone used before the run was made), it is indexed as any run. Such a run's
      -- own insert looks in runs_session_unfinished only: every other run of its session is there
      DROP INDEX runs_session;
      CREATE INDEX runs_session ON runs (session_key, created_at, id) WHERE session_key <> 'hook:' || id OR waiting = 1;
      DROP INDEX runs_session_unfinished;
      CREATE INDEX runs_session_unfinished ON runs (session_key) WHERE finished_at IS NULL AND (session_key <> 'hook:' || id OR waiting = 1);
      DROP TRIGGER runs_wait_behind;
      CREATE TRIGGER runs_wait_behind AFTER INSERT ON runs
        WHEN NEW.status IN ('queued', 'running')
          AND (EXISTS (SELECT 1 FROM runs p WHERE p.session_key = NEW.session_key AND p.finished_at IS NULL AND (p.session_key <> 'hook:' || p.id OR p.waiting = 1)
                 AND (p.status IN ('queued', 'running') OR p.status = 'waiting_approval') AND p.rowid < NEW.rowid)
            OR (substr(NEW.session_key, 1, 5) = 'hook:' AND NEW.session_key <> 'hook:' || NEW.id
              AND EXISTS (SELECT 1 FROM runs p WHERE p.id = substr(NEW.session_key, 6) AND p.session_key = NEW.session_key
                 AND p.finished_at IS NULL AND (p.status IN ('queued', 'running') OR p.status = 'waiting_approval') AND p.rowid < NEW.rowid)))
      BEGIN
        UPDATE runs SET waiting = 1 WHERE rowid = NEW.rowid;
        UPDATE runs SET followed = 1 WHERE rowid = (SELECT MAX(rowid) FROM (
          SELECT p.rowid AS rowid FROM runs p WHERE p.session_key = NEW.session_key AND p.finished_at IS NULL AND (p.session_key <> 'hook:' || p.id OR p.waiting = 1)
            AND (p.status IN ('queued', 'running') OR p.status = 'waiting_approval') AND p.rowid < NEW.rowid
          UNION ALL
          SELECT p.rowid FROM runs p WHERE substr(NEW.session_key, 1, 5) = 'hook:' AND p.id = substr(NEW.session_key, 6) AND p.session_key = NEW.session_key
            AND p.finished_at IS NULL AND (p.status IN ('queued', 'running') OR p.status = 'waiting_approval') AND p.rowid < NEW.rowid));
      END;
      -- the runs behind a session's head wait (waiting = 1), so the next is in runs_session_unfinished
      DROP TRIGGER runs_release_next;
      CREATE TRIGGER runs_release_next AFTER UPDATE OF status ON runs
        WHEN OLD.followed = 1 AND OLD.waiting = 0 AND OLD.finished_at IS NULL AND NEW.finished_at IS NOT NULL
      BEGIN
        UPDATE runs SET waiting = 0 WHERE rowid =
          (SELECT rowid FROM runs WHERE session_key = OLD.session_key AND finished_at IS NULL AND (session_key <> 'hook:' || id OR waiting = 1)
             AND (status IN ('queued', 'running') OR status = 'waiting_approval') ORDER BY rowid LIMIT 1);
      END;
    `,
  },
];

/** the triggers keeping the `store_counts` rows named `<table>:<status>` exact, for `statuses` only (the rows there are) */
function countedStatusTriggers(table: string, statuses: string[]): string {
  const counted = `(${statuses.map((status) => `'${status}'`).join(', ')})`;
  return `
      CREATE TRIGGER ${table}_counted_insert AFTER INSERT ON ${table} WHEN NEW.status IN ${counted} BEGIN
        UPDATE store_counts SET n = n + 1 WHERE name = '${table}:' || NEW.status;
      END;
      CREATE TRIGGER ${table}_counted_leave AFTER UPDATE OF status ON ${table} WHEN OLD.status <> NEW.status AND OLD.status IN ${counted} BEGIN
        UPDATE store_counts SET n = n - 1 WHERE name = '${table}:' || OLD.status;
      END;
      CREATE TRIGGER ${table}_counted_enter AFTER UPDATE OF status ON ${table} WHEN OLD.status <> NEW.status AND NEW.status IN ${counted} BEGIN
        UPDATE store_counts SET n = n + 1 WHERE name = '${table}:' || NEW.status;
      END;
      CREATE TRIGGER ${table}_counted_delete AFTER DELETE ON ${table} WHEN OLD.status IN ${counted} BEGIN
        UPDATE store_counts SET n = n - 1 WHERE name = '${table}:' || OLD.status;
      END;`;
}

/** the triggers keeping the `store_counts` rows named `<table>:<status>` exact */
function countedTriggers(table: string): string {
  return `
      CREATE TRIGGER ${table}_counted_insert AFTER INSERT ON ${table} BEGIN
        UPDATE store_counts SET n = n + 1 WHERE name = '${table}:' || NEW.status;
      END;
      CREATE TRIGGER ${table}_counted_update AFTER UPDATE OF status ON ${table} WHEN OLD.status <> NEW.status BEGIN
        UPDATE store_counts SET n = n - 1 WHERE name = '${table}:' || OLD.status;
        UPDATE store_counts SET n = n + 1 WHERE name = '${table}:' || NEW.status;
      END;
      CREATE TRIGGER ${table}_counted_delete AFTER DELETE ON ${table} BEGIN
        UPDATE store_counts SET n = n - 1 WHERE name = '${table}:' || OLD.status;
      END;`;
}
