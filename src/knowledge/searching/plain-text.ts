/**
 * Markdown (and stray HTML) markup taken out of a passage, line by line, so a quote reads as
 * prose: headings, emphasis, inline code, links and images (their text kept), list bullets,
 * quote marks, table pipes (cells kept, separated by semicolons) and code fences. Lines stay lines.
 */
const FENCE = /^\s*(```|~~~)/;
const TABLE_RULE = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;
const RULE = /^\s*([-*_]\s*){3,}$/;

export function plainText(markdown: string): string {
  return markdown
    .split('\n')
    .filter((line) => !FENCE.test(line) && !(TABLE_RULE.test(line) && line.includes('|')) && !RULE.test(line))
    .map((line) =>
      line
        .replace(/^\s*#{1,6}\s+/, '')
        .replace(/^\s*(>\s*)+/, '')
        .replace(/^\s*([-*+]|\d{1,3}[.)])\s+(\[[ xX]\]\s+)?/, '')
        .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
        .replace(/\[([^\]]+)\]\([^)]*\)/g, '$1')
        .replace(/<\/?[a-zA-Z][^>]*>/g, '')
        .replace(/`+([^`]*)`+/g, '$1')
        .replace(/(\*\*|__|~~)(?=\S)(.+?)(?<=\S)\1/g, '$2')
        .replace(/(^|[^\p{L}\p{N}*_])[*_](?=\S)(.+?)(?<=\S)[*_](?![\p{L}\p{N}])/gu, '$1$2')
        .replace(/^\s*\|/, '')
        .replace(/\|\s*$/, '')
        .replace(/\s*\|\s*/g, '; ')
        .trim(),
    )
    .join('\n');
}
