import { stampClock, type TransformClock } from './transform-clock.js';
import { TransformModules } from './transform-modules.js';
import type { LocatedTransform, TransformContext } from './transform-runner.js';
import { stackFrames, type StackFrame } from './transform-stack.js';

export interface TransformTask extends LocatedTransform {
  /** absent: only import the module and check its export */
  ctx?: TransformContext;
  /** stamped as the task's module is imported and its function called: the caller's deadline */
  clock?: TransformClock;
}

/** what a transform returned, or what it threw (its name, message and stack's file frames: an Error's class does not cross threads) */
export type TransformAnswer = { value: unknown } | { error: { name: string; message: string; frames: StackFrame[] } };

const modules = new TransformModules();

/**
 * Runs in a transform worker thread (the compiled file itself, or transform-worker-entry.mjs from
 * the sources). Each worker imports a module on its first call and again when its version changes.
 */
export default async function runTransformTask(task: TransformTask): Promise<TransformAnswer> {
  try {
    if (task.clock) stampClock(task.clock, 'loading');
    const fn = await modules.get(task.file, task.version, task.exportName);
    if (!task.ctx) return { value: undefined };
    if (task.clock) stampClock(task.clock, 'calling');
    return { value: await fn(task.ctx) };
  } catch (error) {
    const { name, message, stack } = error instanceof Error ? error : { name: 'Error', message: String(error), stack: undefined };
    return { error: { name, message, frames: stackFrames(stack) } };
  }
}
