// `node --import ./trace-loads.mjs ...`: appends every module URL the process resolves to $HERALD_TRACE_LOADS
import { register } from 'node:module';

register('./trace-loads-hooks.mjs', import.meta.url);

// and, with $HERALD_TRACE_BUILTINS, the Node built-in modules loaded by the end (internal ones too:
// Node's fetch is `internal/deps/undici/undici`), written as the process exits
if (process.env.HERALD_TRACE_BUILTINS) {
  const { writeFileSync } = await import('node:fs');
  process.on('exit', () => writeFileSync(process.env.HERALD_TRACE_BUILTINS, process.moduleLoadList.join('\n')));
}
