#!/usr/bin/env node
// `npm run build` (and `prepare`, so `npm install`/`npm ci` run it): bundles src/ and plugins/ into
// dist/, which bin/herald.mjs runs instead of the sources once it is fresh. One bundle instead of
// ~400 modules: resolving, reading and compiling each module file was most of the start-up time,
// and zod's classic entry alone loads ~95 files (every locale). dist/ is never committed.
// Type checking is `npm run typecheck`; esbuild only strips types.
import fs from 'node:fs';
import path from 'node:path';
import { DIST, ROOT, STAMP } from './build-stamp.mjs';

if (!fs.existsSync(path.join(ROOT, 'src/cli/main.ts'))) {
  // a dependencies-only stage (the Dockerfile's first) has no sources yet: nothing to build
  console.error('herald build: no sources here; skipped');
  process.exit(0);
}
let esbuild;
try {
  esbuild = await import('esbuild');
} catch {
  console.error('herald build: esbuild is not installed; skipped (herald runs from its TypeScript sources)');
  process.exit(0);
}

/**
 * Packages bundled in: pure ES modules loaded at every start. Everything else stays a package
 * import: native addons (better-sqlite3), CommonJS with dynamic requires (pino, pg), and what loads
 * lazily on first use (parsers, piscina, prom-client, tsx).
 */
const BUNDLED = new Set([
  ...['zod', 'hono', '@hono/node-server', '@hono/zod-openapi', '@hono/zod-validator', '@asteasolutions/zod-to-openapi'],
  // CommonJS without dynamic requires, read file by file at every start (yaml alone is 73 files,
  // prom-client with @opentelemetry/api 90): bundled, their `require`s of Node's modules go
  // through the banner's createRequire
  ...['yaml', 'json5', 'prom-client', '@opentelemetry/api', 'bintrees', 'tdigest'],
  // pino and what it requires (its __dirname lookups are only for transports, which herald does not use)
  ...['pino', '@pinojs/redact', 'atomic-sleep', 'on-exit-leak-free', 'pino-abstract-transport', 'pino-std-serializers', 'process-warning'],
  ...['quick-format-unescaped', 'real-require', 'safe-stable-stringify', 'sonic-boom', 'thread-stream'],
  // ajv and what it requires (~70 files): imported with a config's first schema, a chunk of its own
  ...['ajv', 'ajv-formats', 'fast-deep-equal', 'fast-uri', 'json-schema-traverse', 'require-from-string'],
]);
const packageName = (specifier) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');

/** every bare import outside BUNDLED is external */
const externalPackages = {
  name: 'external-packages',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) => (BUNDLED.has(packageName(args.path)) ? undefined : { path: args.path, external: true }));
  },
};

/**
 * zod's classic entry re-exports every locale (`z.locales`, 64 files, ~360 KB of the bundle that
 * every start parses); herald uses English only, which zod sets itself. The locales index gets
 * English alone.
 */
const englishZodLocaleOnly = {
  name: 'english-zod-locale-only',
  setup(build) {
    build.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, () => ({ contents: 'export { default as en } from "./en.js";\n', loader: 'js' }));
  },
};

/**
 * prom-client's process CPU metric requires @opentelemetry/api when it loads, which every start did
 * (the default metrics), for exemplars only, which herald never enables: that require gets the API
 * on first use instead, so a start no longer evaluates it. The tracing SDK loads it on its own.
 */
const promClientOtelOnUse = {
  name: 'prom-client-otel-on-use',
  setup(build) {
    build.onResolve({ filter: /^@opentelemetry\/api$/ }, (args) =>
      /[\\/]node_modules[\\/]prom-client[\\/]/.test(args.importer) ? { path: '@opentelemetry/api', namespace: 'otel-on-use' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'otel-on-use' }, () => ({
      contents: "let api;\nmodule.exports = new Proxy({}, { get: (_, key) => (api ??= require('@opentelemetry/api'))[key] });\n",
      loader: 'js',
      resolveDir: ROOT,
    }));
  },
};

const REQUIRE_BANNER = "import { createRequire as __heraldCreateRequire } from 'node:module'; const require = __heraldCreateRequire(import.meta.url);";

/**
 * The banner left only in the outputs that name `require` (a handful: esbuild's __require shim,
 * code calling require itself). In the others it was an import of node:module to resolve and link
 * and a createRequire to run, per chunk, at every start: ~70 of the ~75 chunks `serve` loads. The
 * line stays, blank, so the source maps still line up. Any `require` at all, even in a comment or
 * a string, keeps it: the test is by name, never by meaning.
 */
function dropUnusedRequireBanner(file) {
  const code = fs.readFileSync(file, 'utf8');
  if (!code.startsWith(REQUIRE_BANNER) || /\brequire\b/.test(code.slice(REQUIRE_BANNER.length))) return;
  fs.writeFileSync(file, code.slice(REQUIRE_BANNER.length));
}

// a source saved while the build runs is newer than the stamp: that build is stale at once, never trusted
const startedAt = Date.now();
fs.rmSync(DIST, { recursive: true, force: true });
let result;
try {
  result = await esbuild.build({
    absWorkingDir: ROOT,
    // the entry points keep their source paths under dist/ (bin/herald.mjs and the worker pool find
    // them there); what they share goes to dist/chunks/
    entryPoints: ['src/cli/main.ts', 'plugins/listings.ts', 'src/knowledge/parsing/parse-worker.ts', 'src/mappings/transforms/transform-worker.ts', 'src/models/token-count-worker.ts'],
    outbase: '.',
    outdir: 'dist',
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'linked',
    // what esbuild's __require shim calls for a bundled CommonJS package's require('util') and the
    // like; taken out again below from the outputs that never name `require`
    banner: { js: REQUIRE_BANNER },
    plugins: [englishZodLocaleOnly, promClientOtelOnUse, externalPackages],
    // which source modules each chunk holds (test/cli/help.e2e.test.ts checks what a command loads)
    metafile: true,
    logLevel: 'warning',
  });
} catch {
  process.exit(1); // esbuild has printed the errors, with file and line
}
fs.writeFileSync(path.join(DIST, 'meta.json'), JSON.stringify(result.metafile));
for (const output of Object.keys(result.metafile.outputs)) if (output.endsWith('.js')) dropUnusedRequireBanner(path.join(ROOT, output));
// files the bundle reads beside itself
fs.cpSync(path.join(ROOT, 'src/http/console/public'), path.join(DIST, 'console'), { recursive: true });
fs.writeFileSync(STAMP, `${JSON.stringify({ startedAt })}\n`);
