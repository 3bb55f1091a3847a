/**
 * A count of what is read against `maxBytes`: an event stream's current event (it ends at a blank
 * line), else the whole answer; none when the answer's length is said and within it (the HTTP
 * client holds a body to its content-length). False once past it.
 */
export function messageCounter(events: boolean, length: number, maxBytes: number): ((chunk: Uint8Array) => boolean) | undefined {
  if (!events && length <= maxBytes) return undefined;
  let seen = 0;
  let last = 0;
  return (chunk) => {
    seen += chunk.byteLength;
    if (events) {
      const end = lastBlankLine(chunk, last);
      if (end >= 0) seen = chunk.byteLength - end;
      last = chunk.at(-1) ?? last;
    }
    return seen <= maxBytes;
  };
}

/** the offset just past the chunk's last `\n\n` (the byte before the chunk given as `before`), -1 when none */
function lastBlankLine(chunk: Uint8Array, before: number): number {
  for (let i = chunk.length - 1; i >= 0; i--) {
    if (chunk[i] === 10 && (i > 0 ? chunk[i - 1] : before) === 10) return i + 1;
  }
  return -1;
}
