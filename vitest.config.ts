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
  'test/http/v1/chat-tools.e2e.test.ts',
  'test/http/v1/responses-tools.e2e.test.ts',
  'test/http/v1/auth.e2e.test.ts',
  'test/knowledge/upload.e2e.test.ts',
  'test/knowledge/duplicate-uploads.e2e.test.ts',
  'test/http/v1/vector-stores.e2e.test.ts',
  'test/http/v1/file-search.e2e.test.ts',
  'test/metrics/metrics.e2e.test.ts',
  'test/http/admin/admin-api.test.ts',
  'test/http/admin/admin-stream.test.ts',
  'test/http/admin/overview-trouble.e2e.test.ts',
  'test/http/admin/admin-filters.test.ts',
  'test/http/admin/console-lists-api.test.ts',
  'test/http/admin/approvals.test.ts',
  'test/runtime/delivery-policy.e2e.test.ts',
  'test/accounts/usage.e2e.test.ts',
  'test/tools/hook-run-tools.e2e.test.ts',
  'test/plugins/presets/discord-deferred.e2e.test.ts',
  'test/tracing/traces.e2e.test.ts',
  'test/tracing/spans.e2e.test.ts',
  'test/evals/eval.e2e.test.ts',
  'test/evals/eval-candidates.e2e.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    projects: [
      { extends: true, test: { name: 'main', include: ['test/**/*.test.ts'], globalSetup: ['test/helpers/postgres-setup.ts'] } },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: onPostgresToo,
          env: { HERALD_TEST_STORAGE: 'postgres' },
          globalSetup: ['test/helpers/postgres-setup.ts', 'test/helpers/postgres-run.ts'],
        },
      },
    ],
  },
});
