import type { Definition } from './definition.js';

/** the triggers, each as it is now; created after every function */
export const triggers: Definition[] = [
  {
    name: 'deliveries_counted',
    sql: `
      CREATE TRIGGER deliveries_counted AFTER INSERT OR DELETE OR UPDATE OF status ON deliveries
        FOR EACH ROW EXECUTE FUNCTION herald_count_status('pending', 'sending', 'delivered', 'failed', 'abandoned');
    `,
  },
  {
    name: 'knowledge_documents_counted',
    sql: `
      CREATE TRIGGER knowledge_documents_counted AFTER INSERT OR DELETE OR UPDATE OF chunk_count ON knowledge_documents
        FOR EACH ROW EXECUTE FUNCTION herald_count_knowledge();
    `,
  },
  {
    name: 'runs_wait_behind',
    sql: `
      CREATE TRIGGER runs_wait_behind BEFORE INSERT ON runs FOR EACH ROW EXECUTE FUNCTION herald_run_inserted();
    `,
  },
  {
    name: 'session_messages_summarised',
    sql: `
      CREATE TRIGGER session_messages_summarised AFTER INSERT ON session_messages
        REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION herald_session_turn_summarised();
    `,
  },
  {
    name: 'events_counted_update',
    sql: `
      CREATE TRIGGER events_counted_update AFTER UPDATE ON events REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
        FOR EACH STATEMENT EXECUTE FUNCTION herald_count_status_rows('pending', 'dropped');
    `,
  },
  {
    name: 'events_counted_delete',
    sql: `
      CREATE TRIGGER events_counted_delete AFTER DELETE ON events REFERENCING OLD TABLE AS old_rows
        FOR EACH STATEMENT EXECUTE FUNCTION herald_count_status_rows('pending', 'dropped');
    `,
  },
  {
    name: 'events_counted_insert',
    sql: `
      CREATE TRIGGER events_counted_insert AFTER INSERT ON events REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT
        WHEN (current_setting('herald.event_inserts_counted', true) IS DISTINCT FROM 'by_caller')
        EXECUTE FUNCTION herald_count_status_rows('pending', 'dropped');
    `,
  },
  {
    name: 'runs_release_next',
    sql: `
      CREATE TRIGGER runs_release_next AFTER UPDATE OF status ON runs FOR EACH ROW
        WHEN (OLD.status IN ('queued', 'running', 'waiting_approval') AND NEW.status NOT IN ('queued', 'running', 'waiting_approval') AND NOT OLD.waiting)
        EXECUTE FUNCTION herald_run_ended();
    `,
  },
  {
    name: 'runs_counted_insert',
    sql: `
      CREATE TRIGGER runs_counted_insert AFTER INSERT ON runs REFERENCING NEW TABLE AS new_rows
        FOR EACH STATEMENT EXECUTE FUNCTION herald_count_status_rows('queued', 'running', 'waiting_approval');
    `,
  },
  {
    name: 'runs_counted_delete',
    sql: `
      CREATE TRIGGER runs_counted_delete AFTER DELETE ON runs REFERENCING OLD TABLE AS old_rows
        FOR EACH STATEMENT EXECUTE FUNCTION herald_count_status_rows('queued', 'running', 'waiting_approval');
    `,
  },
  {
    name: 'runs_counted',
    sql: `
      CREATE TRIGGER runs_counted AFTER UPDATE OF status ON runs FOR EACH ROW
        WHEN (OLD.status IS DISTINCT FROM NEW.status AND current_setting('herald.runs_counted', true) IS DISTINCT FROM 'by_caller')
        EXECUTE FUNCTION herald_count_status('queued', 'running', 'waiting_approval');
    `,
  },
];
