/**
 * A preset's message as lines: `messageLines([first, ...rest])` is one messageTemplate. A line
 * after the first that is a single `{{ expr }}` hole is optional: when it renders empty, it and
 * its line break are left out, with the blank lines just before it, so a sparse payload ends
 * on its last fact instead of on empty lines. Other lines, blank ones included, stay as written.
 * A hole reads the payload as any complex template expression does (`payload.`, `headers.`, bare paths).
 */
export function messageLines(lines: readonly string[]): string {
  let out = '';
  let blanks = '';
  lines.forEach((line, i) => {
    const hole = i > 0 ? singleHole(line) : undefined;
    if (i > 0 && line === '') {
      blanks += '\n';
      return;
    }
    if (hole === undefined) {
      out += (i > 0 ? `${blanks}\n` : '') + line;
    } else {
      // the line break goes inside the hole, after the value is known
      // as a hole renders: null and absent as nothing, a string as itself, anything else as JSON
      const text = `($v := (${hole}); $type($v) = "string" ? $v : $exists($v) and $type($v) != "null" ? $string($v) : "")`;
      out += `{{ ($line := ${text}; $trim($line) != "" ? ${JSON.stringify(`${blanks}\n`)} & $line : "") }}`;
    }
    blanks = '';
  });
  return out + blanks;
}

/** the expression of a line that is one `{{ }}` hole and nothing else */
function singleHole(line: string): string | undefined {
  const text = line.trim();
  if (!text.startsWith('{{') || !text.endsWith('}}')) return undefined;
  const inner = text.slice(2, -2);
  return inner.includes('{{') || inner.includes('}}') ? undefined : inner.trim();
}
