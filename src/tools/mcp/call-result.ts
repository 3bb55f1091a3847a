import { capText } from '../result-cap.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ToolResult } from '../tool-spec.js';

type ContentItem = CallToolResult['content'][number];

/** base64's length in the bytes it decodes to */
const decodedBytes = (base64: string) => Math.floor((base64.length * 3) / 4) - (base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0);

/** one content item as the model reads it: text as it is, anything else named briefly */
function itemText(item: ContentItem): string {
  switch (item.type) {
    case 'text':
      return item.text;
    case 'image':
    case 'audio':
      return `[${item.type} ${item.mimeType}, ${decodedBytes(item.data)} bytes]`;
    case 'resource_link':
      return `[resource link ${item.name}: ${item.uri}]`;
    case 'resource': {
      const { resource } = item;
      if ('text' in resource && typeof resource.text === 'string') return `[resource ${resource.uri}]\n${resource.text}`;
      const blob = 'blob' in resource && typeof resource.blob === 'string' ? `, ${decodedBytes(resource.blob)} bytes` : '';
      return `[resource ${resource.uri}${resource.mimeType ? ` ${resource.mimeType}` : ''}${blob}]`;
    }
    default:
      return `[${(item as { type?: unknown }).type ?? 'content'}]`;
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
 * note saying so. Only the cut text is kept.
 */
export function resultText(result: CallToolResult, maxChars: number): ToolResult {
  const items = Array.isArray(result.content) ? result.content : [];
  const parts = items.map(itemText);
  if (result.structuredContent !== undefined && !items.some((item) => repeats(item, result.structuredContent))) parts.push(JSON.stringify(result.structuredContent));
  const text = parts.length ? parts.join('\n') : '(no content)';
  return { text: capText(text, maxChars), isError: result.isError === true };
}
