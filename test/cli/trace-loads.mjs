// `node --import ./trace-loads.mjs ...`: appends every module URL the process resolves to $HERALD_TRACE_LOADS
import { register } from 'node:module';

register('./trace-loads-hooks.mjs', import.meta.url);
