import type { ChatMessage, MessageMedia } from '../provider.js';

/** what a model reads besides text (models.input) */
export type ModelInput = readonly ('text' | 'image' | 'audio')[];

/**
 * The image types a chat completions `image_url` part takes: PNG, JPEG, WEBP and non-animated GIF
 * (https://platform.openai.com/docs/guides/images-vision#image-input-requirements).
 */
const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/jpg', 'image/webp', 'image/gif']);
/** an `input_audio` part's `format`: `wav` or `mp3` (https://platform.openai.com/docs/api-reference/chat/create, messages → user message → content parts → input_audio) */
const AUDIO_FORMATS: Record<string, 'wav' | 'mp3'> = { 'audio/wav': 'wav', 'audio/x-wav': 'wav', 'audio/wave': 'wav', 'audio/mpeg': 'mp3', 'audio/mp3': 'mp3' };

type WirePart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } } | { type: 'input_audio'; input_audio: { data: string; format: 'wav' | 'mp3' } };
type WireMessage = Omit<ChatMessage, 'media' | 'content'> & { content: string | WirePart[] };

/** one medium as a content part the model reads, or nothing when it reads no such thing */
function partOf(media: MessageMedia, input: ModelInput): WirePart | undefined {
  if (media.kind === 'image' && input.includes('image') && IMAGE_TYPES.has(media.mimeType)) return { type: 'image_url', image_url: { url: `data:${media.mimeType};base64,${media.data}` } };
  const format = AUDIO_FORMATS[media.mimeType];
  if (media.kind === 'audio' && input.includes('audio') && format) return { type: 'input_audio', input_audio: { data: media.data, format } };
  return undefined;
}

/**
 * herald's messages as an OpenAI-compatible chat completions request takes them. A `tool` message's
 * content is text only (https://platform.openai.com/docs/api-reference/chat/create, tool message:
 * `content` string or text parts), so the images and audio of tool results reach a model that
 * reads them (`input`) in a `user` message after the run of tool messages they came with, as
 * `image_url` parts (data URLs) and `input_audio` parts, each after a text part naming its call.
 * A model that reads neither gets only the tool messages, whose text already describes them.
 */
export function wireMessages(messages: readonly ChatMessage[], input: ModelInput): WireMessage[] {
  const out: WireMessage[] = [];
  let attached: WirePart[] = [];
  const flush = () => {
    if (!attached.length) return;
    out.push({ role: 'user', content: attached });
    attached = [];
  };
  for (const m of messages) {
    if (m.role !== 'tool') flush();
    // a message without media goes as it is (JSON leaves out a `media: undefined`): no copy per message of every request
    if (m.media === undefined) {
      out.push(m);
      continue;
    }
    const { media, ...message } = m;
    out.push(message);
    const parts = media.flatMap((item) => partOf(item, input) ?? []);
    if (parts.length) attached.push({ type: 'text', text: `The ${parts.length === 1 ? 'attachment' : 'attachments'} of the result of tool call ${message.tool_call_id ?? ''}:` }, ...parts);
  }
  flush();
  return out;
}
