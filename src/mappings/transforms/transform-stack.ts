import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** one frame of a stack: a file path and a line */
export interface StackFrame {
  file: string;
  line: number;
}

/** `at f (file:///x.mjs?v=1:12:5)` or `at /x.js:12:5` */
const FRAME = /^\s*at (?:.*?\()?((?:file:\/\/)?\/[^():]*?|[A-Za-z]:\\[^():]*?)(?:\?[^:)]*)?:(\d+):\d+\)?\s*$/;
const MAX_FRAMES = 20;

/**
 * The file frames of an error's stack, top first: what a worker sends back with a transform's
 * error (an Error's stack does not cross threads as one, and the worker knows no transforms folder).
 */
export function stackFrames(stack: string | undefined): StackFrame[] {
  const frames: StackFrame[] = [];
  for (const text of (stack ?? '').split('\n')) {
    const match = FRAME.exec(text);
    if (!match) continue;
    const file = match[1]!.startsWith('file://') ? safePath(match[1]!) : match[1]!;
    if (file) frames.push({ file, line: Number(match[2]) });
    if (frames.length === MAX_FRAMES) break;
  }
  return frames;
}

function safePath(url: string): string | undefined {
  try {
    return fileURLToPath(url);
  } catch {
    return undefined;
  }
}

/**
 * `file:line` of the topmost frame inside the transforms folder, the path relative to it: where
 * the transform (or a helper beside it) threw. Undefined when no frame is (a timeout, a worker
 * that ran out of memory, an error made by herald).
 */
export function transformLocation(error: unknown, dir: string): string | undefined {
  const e = error as { frames?: StackFrame[]; stack?: string } | undefined;
  const frames = e?.frames ?? stackFrames(e?.stack);
  const roots = [path.resolve(dir), realOrSame(dir)];
  for (const frame of frames) {
    for (const root of roots) {
      const relative = path.relative(root, frame.file);
      if (relative && !relative.startsWith('..') && !path.isAbsolute(relative)) return `${relative.split(path.sep).join('/')}:${frame.line}`;
    }
  }
  return undefined;
}

function realOrSame(dir: string): string {
  try {
    return fs.realpathSync.native(dir);
  } catch {
    return path.resolve(dir);
  }
}
