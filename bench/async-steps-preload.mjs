// Preloaded into a server by the step counts (bench/async-steps-counts.ts: `node --import`): counts the promises the
// process makes and samples what it allocates, between two SIGUSR2s, then writes both to the file
// named by ASYNC_STEPS_OUT. Plain JavaScript, so any server loads it, herald's build as the baseline.
// The hook and the sampler slow the server: its req/s under them mean nothing, its counts do.
import { createHook } from 'node:async_hooks';
import fs from 'node:fs';
import inspector from 'node:inspector';
import { createRequire } from 'node:module';
import path from 'node:path';

const out = process.env.ASYNC_STEPS_OUT;
if (out) {
  let counting = false;
  let promises = 0;
  const sampleSites = Boolean(process.env.ASYNC_STEPS_SITES);
  const survivorsOnly = Boolean(process.env.ASYNC_STEPS_SURVIVORS);
  // with ASYNC_STEPS_SITES set, every 16th promise's birthplace: its two nearest frames outside node's internals
  const promiseSites = new Map();
  const siteOf = () => {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 12;
    const stack = new Error().stack ?? '';
    Error.stackTraceLimit = limit;
    const frames = stack
      .split('\n')
      .slice(1)
      .map((line) => line.trim().replace(/^at /, ''))
      .filter((frame) => !frame.includes('node:internal') && !frame.includes('async-steps-preload') && !frame.startsWith('new Promise') && !frame.startsWith('Promise.'));
    return frames.slice(0, 2).map((frame) => frame.replace(/\(?(?:file:\/\/)?[^()]*\/([^/()]+:\d+):\d+\)?/, '$1')).join(' < ') || '(node internals)';
  };
  // SQLite's statements and commits, counted at better-sqlite3's Statement (a transaction's COMMIT
  // is one too), as the server resolves the package from its working directory
  let statements = 0;
  let commits = 0;
  /** with ASYNC_STEPS_SITES, the statements by their SQL */
  const bySource = new Map();
  try {
    const Database = createRequire(path.join(process.cwd(), 'package.json'))('better-sqlite3');
    const probe = new Database(':memory:');
    const Statement = Object.getPrototypeOf(probe.prepare('SELECT 1'));
    probe.close();
    for (const method of ['run', 'get', 'all', 'iterate']) {
      const original = Statement[method];
      Statement[method] = function () {
        if (counting) {
          if (this.source === 'COMMIT') commits++;
          else statements++;
          // a statement outside a transaction takes the WAL's locks for itself: marked
          const source = this.database.inTransaction || /^BEGIN\b/.test(this.source) ? this.source : `(alone) ${this.source}`;
          if (sampleSites) bySource.set(source, (bySource.get(source) ?? 0) + 1);
        }
        return original.apply(this, arguments);
      };
    }
  } catch {
    // a server without better-sqlite3 (PostgreSQL's baseline): no statements counted
  }
  createHook({
    init(_id, type) {
      if (!counting || type !== 'PROMISE') return;
      promises++;
      if (sampleSites && promises % 16 === 0) {
        const site = siteOf();
        promiseSites.set(site, (promiseSites.get(site) ?? 0) + 16);
      }
    },
  }).enable();
  const session = new inspector.Session();
  session.connect();
  const post = (method, params) => new Promise((resolve, reject) => session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))));

  process.on('SIGUSR2', () => {
    if (!counting) {
      promises = 0;
      statements = 0;
      commits = 0;
      bySource.clear();
      promiseSites.clear();
      counting = true;
      // every 4 KiB allocated, the objects either collector freed since included: what was allocated, not what is left.
      // ASYNC_STEPS_SURVIVORS=1 leaves out what a scavenge freed: what outlived new space, the full collections' work
      void post('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: !survivorsOnly });
      return;
    }
    counting = false;
    void post('HeapProfiler.stopSampling').then(({ profile }) => {
      const bySite = new Map();
      let allocated = 0;
      // a builtin (join, replace: no url) is named with the nearest script frame that called it
      const walk = (node, caller) => {
        const { functionName, url, lineNumber } = node.callFrame;
        const here = url ? `${functionName || '(anonymous)'} ${url.split('/').pop()}:${lineNumber + 1}` : `${functionName || '(anonymous)'} < ${caller}`;
        // the promise hook's own bookkeeping is the counting's, not the server's
        if (node.selfSize && url !== 'node:internal/async_hooks') {
          allocated += node.selfSize;
          bySite.set(here, (bySite.get(here) ?? 0) + node.selfSize);
        }
        for (const child of node.children) walk(child, url ? here : caller);
      };
      walk(profile.head, '(root)');
      const top = [...bySite].sort((a, b) => b[1] - a[1]).slice(0, 120);
      const promiseTop = [...promiseSites].sort((a, b) => b[1] - a[1]).slice(0, 80);
      fs.writeFileSync(out, JSON.stringify({ promises, statements, commits, allocated, top, promiseTop, statementTop: [...bySource].sort((a, b) => b[1] - a[1]).slice(0, 40) }));
    });
  });
}
