import JSON5 from 'json5';

/**
 * Edits JSON5 text in place, so comments and layout outside the changed values survive
 * (the json5 package can only parse and stringify). A small scanner finds where each member's
 * value starts and ends; an edit replaces one value or inserts one member.
 */
interface MemberNode {
  key: string;
  keyStart: number;
  valueStart: number;
  valueEnd: number;
  value: ValueNode;
}
type ValueNode = { kind: 'object'; start: number; end: number; members: MemberNode[] } | { kind: 'array' | 'scalar'; start: number; end: number };

class Scanner {
  pos = 0;
  constructor(readonly text: string) {}

  fail(what: string): never {
    throw new Error(`JSON5 edit: ${what} at offset ${this.pos}`);
  }

  skipBlank(): void {
    const t = this.text;
    for (;;) {
      const c = t[this.pos];
      if (c === undefined) return;
      if (/\s|\uFEFF/.test(c)) this.pos++;
      else if (c === '/' && t[this.pos + 1] === '/') {
        while (this.pos < t.length && t[this.pos] !== '\n') this.pos++;
      } else if (c === '/' && t[this.pos + 1] === '*') {
        const end = t.indexOf('*/', this.pos + 2);
        if (end < 0) this.fail('unclosed comment');
        this.pos = end + 2;
      } else return;
    }
  }

  string(): string {
    const quote = this.text[this.pos];
    const start = this.pos++;
    while (this.pos < this.text.length && this.text[this.pos] !== quote) this.pos += this.text[this.pos] === '\\' ? 2 : 1;
    if (this.pos >= this.text.length) this.fail('unclosed string');
    this.pos++;
    return JSON5.parse(this.text.slice(start, this.pos)) as string;
  }

  value(): ValueNode {
    this.skipBlank();
    const start = this.pos;
    const c = this.text[this.pos];
    if (c === '{') return this.object();
    if (c === '[') {
      this.pos++;
      for (;;) {
        this.skipBlank();
        if (this.text[this.pos] === ']') break;
        this.value();
        this.skipBlank();
        if (this.text[this.pos] === ',') this.pos++;
        else if (this.text[this.pos] !== ']') this.fail('expected , or ]');
      }
      this.pos++;
      return { kind: 'array', start, end: this.pos };
    }
    if (c === '"' || c === "'") {
      this.string();
      return { kind: 'scalar', start, end: this.pos };
    }
    while (this.pos < this.text.length && /[\w.+\-$]/.test(this.text[this.pos]!)) this.pos++;
    if (this.pos === start) this.fail('expected a value');
    return { kind: 'scalar', start, end: this.pos };
  }

  object(): ValueNode {
    const start = this.pos++;
    const members: MemberNode[] = [];
    for (;;) {
      this.skipBlank();
      const c = this.text[this.pos];
      if (c === '}') break;
      const keyStart = this.pos;
      let key: string;
      if (c === '"' || c === "'") key = this.string();
      else {
        while (this.pos < this.text.length && /[\w$]/.test(this.text[this.pos]!)) this.pos++;
        key = this.text.slice(keyStart, this.pos);
        if (!key) this.fail('expected a key');
      }
      this.skipBlank();
      if (this.text[this.pos] !== ':') this.fail('expected :');
      this.pos++;
      const value = this.value();
      members.push({ key, keyStart, valueStart: value.start, valueEnd: value.end, value });
      this.skipBlank();
      if (this.text[this.pos] === ',') this.pos++;
      else if (this.text[this.pos] !== '}') this.fail('expected , or }');
    }
    this.pos++;
    return { kind: 'object', start, end: this.pos, members };
  }
}

function formatKey(key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? key : JSON5.stringify(key, { quote: "'" });
}

/** JSON5 text of a value, laid out for a member indented by `indent`. */
export function formatJson5(value: unknown, indent: string): string {
  if (Array.isArray(value)) {
    if (value.every((v) => v === null || typeof v !== 'object')) return `[${value.map((v) => formatJson5(v, indent)).join(', ')}]`;
    return `[\n${value.map((v) => `${indent}  ${formatJson5(v, `${indent}  `)},\n`).join('')}${indent}]`;
  }
  if (value && typeof value === 'object') {
    const entries = Object.entries(value);
    if (!entries.length) return '{}';
    return `{\n${entries.map(([k, v]) => `${indent}  ${formatKey(k)}: ${formatJson5(v, `${indent}  `)},\n`).join('')}${indent}}`;
  }
  return JSON5.stringify(value, { quote: "'" });
}

/** JSON5 text of a value on one line, for objects written inline (`{ a: 1 }`). */
function formatInline(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(formatInline).join(', ')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value);
    return entries.length ? `{ ${entries.map(([k, v]) => `${formatKey(k)}: ${formatInline(v)}`).join(', ')} }` : '{}';
  }
  return JSON5.stringify(value, { quote: "'" });
}

function lineIndent(text: string, offset: number): string {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(lineStart))![0];
}

function nestedValue(path: string[], value: unknown): unknown {
  return path.reduceRight<unknown>((inner, key) => ({ [key]: inner }), value);
}

/** Sets `path` to `value` in JSON5 text, creating missing objects; everything else is left as written. */
export function setJson5Path(text: string, path: string[], value: unknown): string {
  const scanner = new Scanner(text);
  const root = scanner.value();
  if (root.kind !== 'object') throw new Error('JSON5 edit: the file is not an object');
  let node: ValueNode = root;
  for (let i = 0; i < path.length; i++) {
    if (node.kind !== 'object') throw new Error('unreachable');
    const member: MemberNode | undefined = node.members.find((m) => m.key === path[i]);
    const rest = path.slice(i + 1);
    if (!member) return insertMember(text, node, path[i]!, nestedValue(rest, value));
    if (rest.length === 0 || member.value.kind !== 'object') {
      const replacement = formatJson5(nestedValue(rest, value), lineIndent(text, member.keyStart));
      return text.slice(0, member.valueStart) + replacement + text.slice(member.valueEnd);
    }
    node = member.value;
  }
  return text;
}

function insertMember(text: string, object: Extract<ValueNode, { kind: 'object' }>, key: string, value: unknown): string {
  const last = object.members.at(-1);
  if (!last) {
    const multiline = text.slice(object.start, object.end).includes('\n');
    const outer = lineIndent(text, object.start);
    if (!multiline) return `${text.slice(0, object.start)}{ ${formatKey(key)}: ${formatInline(value)} }${text.slice(object.end)}`;
    const indent = `${outer}  `;
    return `${text.slice(0, object.start)}{\n${indent}${formatKey(key)}: ${formatJson5(value, indent)},\n${outer}}${text.slice(object.end)}`;
  }
  const indent = lineIndent(text, last.keyStart);
  const member = `${formatKey(key)}: ${formatJson5(value, indent)}`;
  // after the last member: an optional comma, then maybe a line comment, then the end of the line
  const after = /^[ \t]*(,?)[ \t]*(\/\/[^\n]*)?(?=\r?\n)/.exec(text.slice(last.valueEnd));
  if (!after) return `${text.slice(0, last.valueEnd)}, ${formatKey(key)}: ${formatInline(value)}${text.slice(last.valueEnd)}`;
  const hadComma = after[1] === ',';
  const lineEnd = last.valueEnd + after[0].length;
  const head = hadComma ? text.slice(0, lineEnd) : `${text.slice(0, last.valueEnd)},${text.slice(last.valueEnd, lineEnd)}`;
  return `${head}\n${indent}${member}${hadComma ? ',' : ''}${text.slice(lineEnd)}`;
}
