import { capText } from '../result-cap.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { MessageMedia } from '../../models/provider.js';
import type { ToolResultPart } from '../../store/contracts/tool-calls-port.js';
import type { ToolResult } from '../tool-spec.js';

type ContentItem = CallToolResult['content'][number];

/** an image at most this large keeps its data on the call's record: the console's thumbnail */
export const RESULT_THUMBNAIL_BYTES = 48 * 1024;
/** the structured content kept on the record for the console, in characters */
const STRUCTURED_KEPT_CHARS = 16 * 1024;

/** base64's length in the bytes it decodes to */
const decodedBytes = (base64: string) => Math.floor((base64.length * 3) / 4) - (base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0);

/** what one result's images and audio may still take of tools.maxMediaBytes */
interface MediaBudget {
  left: number;
  readonly max: number;
}

/** one content item as the model reads it (text as it is, anything else named with its kind and size), and what it adds to the media and the record */
function itemOf(item: ContentItem, budget: MediaBudget): { text: string; media?: MessageMedia; part?: ToolResultPart } {
  switch (item.type) {
    case 'text':
      return { text: item.text };
    case 'image':
    case 'audio': {
      const bytes = decodedBytes(item.data);
      const part: ToolResultPart =
        item.type === 'image' ? { kind: 'image', mimeType: item.mimeType, bytes, ...(bytes <= RESULT_THUMBNAIL_BYTES && { data: item.data }) } : { kind: 'audio', mimeType: item.mimeType, bytes };
      const described = `[${item.type} ${item.mimeType}, ${bytes} bytes`;
      if (bytes > budget.left) return { text: `${described}: not passed on, past tools.maxMediaBytes (${budget.max})]`, part };
      budget.left -= bytes;
      return { text: `${described}]`, media: { kind: item.type, mimeType: item.mimeType, data: item.data }, part };
    }
    case 'resource_link':
      return {
        text: `[resource link ${item.name}: ${item.uri}${item.mimeType ? ` (${item.mimeType})` : ''}]${item.description ? ` ${item.description}` : ''}`,
        part: { kind: 'resource_link', uri: item.uri, name: item.name, ...(item.mimeType && { mimeType: item.mimeType }), ...(item.description && { description: item.description }) },
      };
    case 'resource': {
      const { resource } = item;
      const mime = resource.mimeType ? { mimeType: resource.mimeType } : {};
      if ('text' in resource && typeof resource.text === 'string') {
        return { text: `[resource ${resource.uri}]\n${resource.text}`, part: { kind: 'resource', uri: resource.uri, ...mime, size: resource.text.length, text: true } };
      }
      const bytes = 'blob' in resource && typeof resource.blob === 'string' ? decodedBytes(resource.blob) : 0;
      return { text: `[resource ${resource.uri}${resource.mimeType ? ` ${resource.mimeType}` : ''}, ${bytes} bytes]`, part: { kind: 'resource', uri: resource.uri, ...mime, size: bytes } };
    }
    default:
      return { text: `[${(item as { type?: unknown }).type ?? 'content'}]` };
  }
}

/** a text item that already is the structured content, serialized (as the spec asks servers to add for older clients) */
function repeats(item: ContentItem, structured: unknown): boolean {
  if (item.type !== 'text') return false;
  try {
    return JSON.stringify(JSON.parse(item.text)) === JSON.stringify(structured);
  } catch {
    return false;
  }
}

/**
 * A tool's result as the model reads it: its content items (text items as they are, others named
 * with their kind and size), then its structured content as JSON (already checked by the SDK
 * against the tool's outputSchema) unless a text item says the same, cut to `maxChars` with a
 * note saying so. Images and audio within `maxMediaBytes` (in all) come along as media, for a
 * model that reads them; the record keeps a summary of every item that is not text.
 */
export function resultText(result: CallToolResult, maxChars: number, maxMediaBytes = 0): ToolResult {
  const items = Array.isArray(result.content) ? result.content : [];
  const budget: MediaBudget = { left: maxMediaBytes, max: maxMediaBytes };
  const read = items.map((item) => itemOf(item, budget));
  const parts = read.flatMap((r) => (r.part ? [r.part] : []));
  const media = read.flatMap((r) => (r.media ? [r.media] : []));
  const texts = read.map((r) => r.text);
  if (result.structuredContent !== undefined) {
    const json = JSON.stringify(result.structuredContent);
    parts.push({ kind: 'structured', json: capText(json, STRUCTURED_KEPT_CHARS) });
    if (!items.some((item) => repeats(item, result.structuredContent))) texts.push(json);
  }
  const text = texts.length ? texts.join('\n') : '(no content)';
  return { text: capText(text, maxChars), isError: result.isError === true, ...(media.length && { media }), ...(parts.length && { parts }) };
}
