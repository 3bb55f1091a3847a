import { deadline } from '../../../src/plugin-sdk/sdk.js';

export interface FetchedText {
  status: number;
  ok: boolean;
  headers: Headers;
  text: string;
}

/**
 * One request and its whole answer under one time limit. The limit is a `deadline` (a plain
 * timer the event loop holds), not `AbortSignal.timeout`: on Node 20 a timeout signal combined
 * or left unreferenced can be garbage-collected mid-request and never fire (src/time/deadline.ts).
 */
export async function fetchText(url: string, init: RequestInit & { signal?: AbortSignal }, timeoutMs = 30_000): Promise<FetchedText> {
  const limit = deadline(timeoutMs, init.signal ?? undefined);
  try {
    const response = await fetch(url, { ...init, signal: limit.signal });
    const text = await response.text();
    return { status: response.status, ok: response.ok, headers: response.headers, text };
  } finally {
    limit.clear();
  }
}

/** the answer's JSON; a non-JSON body becomes Google's error shape with the text as message */
export function parseJsonText(text: string): unknown {
  if (!text) return {};
  try {
    return JSON.parse(text);
  } catch {
    return { error: { message: text.slice(0, 300) } };
  }
}
