import { TransformModules } from './transform-modules.js';
import { transformFailure, type LocatedTransform, type TransformContext, type TransformRunner } from './transform-runner.js';

/**
 * Runs transforms in the calling thread: the command-line dry runs (`herald hooks test`, `config
 * check`, fixtures), where nothing else waits on the thread. The time limit holds for asynchronous
 * work only; the gateway runs transforms in its worker pool instead.
 */
export class InProcessTransforms implements TransformRunner {
  private readonly modules = new TransformModules();

  async check(module: LocatedTransform): Promise<void> {
    await this.modules.get(module.file, module.version, module.exportName);
  }

  async call(module: LocatedTransform, ctx: TransformContext, timeoutMs: number): Promise<unknown> {
    const fn = await this.modules.get(module.file, module.version, module.exportName);
    // the copy a worker would get: a transform that edits its mapping changes nothing of the config
    const own: TransformContext = { payload: ctx.payload, headers: ctx.headers, query: ctx.query, path: ctx.path, url: ctx.url, mapping: structuredClone(ctx.mapping) };
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(transformFailure('TransformTimeout', `transform timed out after ${timeoutMs}ms`)), timeoutMs);
    });
    try {
      return await Promise.race([Promise.resolve().then(() => fn(own)), deadline]);
    } finally {
      clearTimeout(timer);
    }
  }
}
