import { defineConfig } from 'vitest/config';

/**
 * The end-to-end files that run a second time with every herald on PostgreSQL (a fresh schema
 * per herald, dropped at the end of the run): the hook and platform surfaces, runs, the main
 * session and heartbeat. Files that read SQLite directly, and the unit tests, run once; the store
 * contract runs on both adapters in its own files, and the replica test is PostgreSQL-only.
 */
const onPostgresToo = [
  'test/http/smoke.e2e.test.ts',
  'test/http/statuses.e2e.test.ts',
  'test/http/half-closed-clients.e2e.test.ts',
  'test/mappings/mapped-hooks.e2e.test.ts',
  'test/mappings/respond.e2e.test.ts',
  'test/mappings/mapping-failures.e2e.test.ts',
  'test/runtime/runs.e2e.test.ts',
  'test/runtime/traffic.e2e.test.ts',
  'test/runtime/main-session.e2e.test.ts',
  'test/http/v1/chat.e2e.test.ts',
  'test/http/v1/chat-store.e2e.test.ts',
  'test/http/v1/chat-tools.e2e.test.ts',
  'test/http/v1/responses-tools.e2e.test.ts',
  'test/http/v1/auth.e2e.test.ts',
  'test/knowledge/upload.e2e.test.ts',
  'test/knowledge/duplicate-uploads.e2e.test.ts',
  'test/http/v1/vector-stores.e2e.test.ts',
  'test/http/v1/file-search.e2e.test.ts',
  'test/metrics/metrics.e2e.test.ts',
  'test/http/admin/admin-api.e2e.test.ts',
  'test/http/admin/admin-stream.e2e.test.ts',
  'test/http/admin/overview-trouble.e2e.test.ts',
  'test/http/admin/admin-filters.e2e.test.ts',
  'test/http/admin/console-lists-api.e2e.test.ts',
  'test/http/admin/approvals.e2e.test.ts',
  'test/runtime/delivery-policy.e2e.test.ts',
  'test/accounts/usage.e2e.test.ts',
  'test/tools/hook-run-tools.e2e.test.ts',
  'test/plugins/presets/discord-deferred.e2e.test.ts',
  'test/tracing/traces.e2e.test.ts',
  'test/tracing/spans.e2e.test.ts',
  'test/evals/eval.e2e.test.ts',
  'test/evals/eval-candidates.e2e.test.ts',
];

/**
 * Which project a test file runs in is decided by its name or its folder, so a new file lands in
 * the right one without being listed (docs/development.md#the-test-projects):
 * - `*.browser.test.ts`: drives Chromium (`browser`);
 * - `test/replicas/**`: several herald processes on one PostgreSQL schema (`replicas`);
 * - `*postgres*.test.ts`: needs PostgreSQL itself (`postgres`, beside the `onPostgresToo` re-runs);
 * - `*.e2e.test.ts`, and the store's files under `test/store/`: boots herald (in the process or
 *   spawned), opens a database, a socket or a process (`e2e`);
 * - every other `*.test.ts`: functions called in the process, no database, socket or process
 *   (`unit`), which `test/helpers/unit-isolation.ts` enforces by making each of those doors throw.
 */
const browser = 'test/**/*.browser.test.ts';
const replicas = 'test/replicas/**/*.test.ts';
const postgresOnly = 'test/**/*postgres*.test.ts';
const endToEnd = ['test/**/*.e2e.test.ts', 'test/store/**/*.test.ts'];
const postgresSetup = 'test/helpers/postgres-setup.ts';

/**
 * `main`, the one project before the split (every file, SQLite), is kept for the commands that
 * name it (`--project main`); it is defined only then, so `npm test` runs each file once.
 */
const mainAsked = process.argv.some((arg, i) => arg === '--project=main' || (arg === '--project' && process.argv[i + 1] === 'main'));

export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: [browser, replicas, postgresOnly, ...endToEnd], setupFiles: ['test/helpers/unit-isolation.ts'], isolate: false } },
      { extends: true, test: { name: 'e2e', include: endToEnd, exclude: [browser, replicas, postgresOnly], globalSetup: [postgresSetup] } },
      { extends: true, test: { name: 'browser', include: [browser], globalSetup: [postgresSetup] } },
      { extends: true, test: { name: 'replicas', include: [replicas], globalSetup: [postgresSetup] } },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: [...onPostgresToo, postgresOnly],
          env: { HERALD_TEST_STORAGE: 'postgres' },
          globalSetup: [postgresSetup, 'test/helpers/postgres-run.ts'],
        },
      },
      ...(mainAsked ? [{ extends: true, test: { name: 'main', include: ['test/**/*.test.ts'], globalSetup: [postgresSetup] } }] : []),
    ],
  },
});
