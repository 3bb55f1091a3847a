/** a run of 16 digits: the shortest integer literal that can lie beyond 2^53 */
const LONG_DIGITS = /\d{16}/;

/**
 * JSON.parse, except that an integer literal beyond Number.MAX_SAFE_INTEGER (Shopify's and
 * Twitter's 64-bit ids, Discord's snowflakes) is read as a string of its exact digits instead
 * of a number that lost its last ones. Text without 16 digits in a row is parsed as is.
 * Fractions and exponents stay numbers.
 */
export function parseExactJson(text: string): unknown {
  if (!LONG_DIGITS.test(text)) return JSON.parse(text);
  return JSON.parse(quoteUnsafeIntegers(text));
}

const isDigit = (c: number) => c >= 0x30 && c <= 0x39;

/** the text with each unsafe integer literal outside strings put in quotes */
function quoteUnsafeIntegers(text: string): string {
  const n = text.length;
  let out = '';
  let copied = 0;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // a string: skip to its closing quote, past escapes
      i++;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) i += 2;
        else if (d === 0x22) break;
        else i++;
      }
      i++;
      continue;
    }
    if (c !== 0x2d && !isDigit(c)) {
      i++;
      continue;
    }
    const start = i;
    const first = c === 0x2d ? i + 1 : i;
    let j = first;
    while (j < n && isDigit(text.charCodeAt(j))) j++;
    const next = j < n ? text.charCodeAt(j) : -1;
    const integer = next !== 0x2e && next !== 0x65 && next !== 0x45;
    // a literal with a leading zero is not JSON: left for JSON.parse to refuse
    if (integer && j - first >= 16 && text.charCodeAt(first) !== 0x30 && !Number.isSafeInteger(Number(text.slice(start, j)))) {
      out += `${text.slice(copied, start)}"${text.slice(start, j)}"`;
      copied = j;
    }
    // the rest of the literal (fraction, exponent)
    while (j < n && (isDigit(text.charCodeAt(j)) || '.eE+-'.includes(text[j]!))) j++;
    i = Math.max(j, start + 1);
  }
  return copied === 0 ? text : out + text.slice(copied);
}
