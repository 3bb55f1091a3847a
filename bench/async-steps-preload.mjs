// Preloaded into a server by bench/async-steps.bench.ts (`node --import`): counts the promises the
// process makes and samples what it allocates, between two SIGUSR2s, then writes both to the file
// named by ASYNC_STEPS_OUT. Plain JavaScript, so any server loads it, herald's build as the baseline.
// The hook and the sampler slow the server: its req/s under them mean nothing, its counts do.
import { createHook } from 'node:async_hooks';
import fs from 'node:fs';
import inspector from 'node:inspector';

const out = process.env.ASYNC_STEPS_OUT;
if (out) {
  let counting = false;
  let promises = 0;
  createHook({
    init(_id, type) {
      if (counting && type === 'PROMISE') promises++;
    },
  }).enable();
  const session = new inspector.Session();
  session.connect();
  const post = (method, params) => new Promise((resolve, reject) => session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))));

  process.on('SIGUSR2', () => {
    if (!counting) {
      promises = 0;
      counting = true;
      // every 4 KiB allocated, the objects either collector freed since included: what was allocated, not what is left
      void post('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
      return;
    }
    counting = false;
    void post('HeapProfiler.stopSampling').then(({ profile }) => {
      const bySite = new Map();
      let allocated = 0;
      const walk = (node) => {
        const { functionName, url, lineNumber } = node.callFrame;
        // the promise hook's own bookkeeping is the counting's, not the server's
        if (node.selfSize && url !== 'node:internal/async_hooks') {
          allocated += node.selfSize;
          const site = `${functionName || '(anonymous)'} ${url.split('/').pop()}:${lineNumber + 1}`;
          bySite.set(site, (bySite.get(site) ?? 0) + node.selfSize);
        }
        for (const child of node.children) walk(child);
      };
      walk(profile.head);
      const top = [...bySite].sort((a, b) => b[1] - a[1]).slice(0, 10);
      fs.writeFileSync(out, JSON.stringify({ promises, allocated, top }));
    });
  });
}
