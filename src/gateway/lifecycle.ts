import type { Logger } from 'pino';

/** how a stop goes: `graceMs`, how long work under way may take to finish before it is cut short */
export interface StopOptions {
  graceMs: number;
}

/** one part of the running gateway: started in the list's order, stopped in the reverse */
export interface Part {
  name: string;
  start?: () => void | Promise<void>;
  stop?: (options: StopOptions) => void | Promise<void>;
}

/** the error of a part that did not start; the parts started before it were stopped */
export class PartStartError extends Error {
  constructor(
    readonly part: string,
    cause: unknown,
  ) {
    super(`${part} failed to start: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

/**
 * The gateway's parts as one list: start() starts each in order, stop() stops the started ones in
 * the reverse order, so what a part needs is started before it and stopped after it, and the order
 * is read in one place. A part that fails to start stops the ones already started, and the error
 * names it. A part whose stop fails is logged by name; the others are stopped all the same, and
 * the first failure is thrown once they are.
 */
export class Lifecycle {
  private started: Part[] = [];
  private stopAsked = false;

  constructor(
    private readonly parts: Part[],
    private readonly logger: Logger,
  ) {}

  /** a builder's parts, after those registered before them (started after them, stopped before them) */
  add(...parts: Part[]): void {
    this.parts.push(...parts);
  }

  /** true once a stop began: background work under way ends at its next step */
  get stopping(): boolean {
    return this.stopAsked;
  }

  /** the parts' names, in start order */
  get names(): string[] {
    return this.parts.map((p) => p.name);
  }

  async start(): Promise<void> {
    for (const part of this.parts) {
      try {
        await part.start?.();
      } catch (error) {
        this.logger.error({ err: error, part: part.name }, 'a part failed to start; stopping the parts started before it');
        await this.stop({ graceMs: 0 }).catch(() => {});
        throw new PartStartError(part.name, error);
      }
      this.started.push(part);
    }
  }

  async stop(options: StopOptions): Promise<void> {
    this.stopAsked = true;
    let first: unknown;
    for (const part of this.started.splice(0).reverse()) {
      try {
        await part.stop?.(options);
      } catch (error) {
        this.logger.error({ err: error, part: part.name }, 'a part failed to stop');
        first ??= error;
      }
    }
    if (first !== undefined) throw first;
  }
}
