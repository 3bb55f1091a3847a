import { h, json } from './dom.js';

// What a tool call's result held besides its text (the admin API's `content`), each kind shown
// as an operator reads it. Everything here is the tool server's: an image is drawn only from
// data of a raster image type (never SVG, never a URL the server names), a link is a link only
// for http(s) and opens apart from the console (noopener); the rest is text.

const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function size(bytes) {
  return bytes < 1024 ? `${bytes} bytes` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

function httpUrl(uri) {
  try {
    const url = new URL(uri);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

function imageView(part) {
  const label = `Image ${part.mimeType}, ${size(part.bytes)}`;
  const drawable = typeof part.data === 'string' && IMAGE_TYPES.has(part.mimeType) && BASE64.test(part.data);
  if (!drawable) return h('span', { class: 'muted' }, `${label} (too large to keep here, or not a picture type the console draws)`);
  return h('figure', { class: 'result-image' }, h('img', { src: `data:${part.mimeType};base64,${part.data}`, alt: label, style: 'max-width:160px;max-height:160px' }), h('figcaption', { class: 'muted' }, label));
}

function partView(part) {
  switch (part.kind) {
    case 'image':
      return imageView(part);
    case 'audio':
      return h('span', {}, `Audio ${part.mimeType}, ${size(part.bytes)} `, h('span', { class: 'muted' }, '(not kept: the model was sent it if it reads audio)'));
    case 'resource_link': {
      const href = httpUrl(part.uri);
      const name = part.name || part.uri;
      return h(
        'span',
        {},
        'Link: ',
        href ? h('a', { href, rel: 'noopener noreferrer', target: '_blank' }, name) : h('code', {}, part.uri),
        part.mimeType ? h('span', { class: 'muted' }, ` (${part.mimeType})`) : null,
        part.description ? h('span', { class: 'muted' }, ` ${part.description}`) : null,
      );
    }
    case 'resource':
      return h('span', {}, 'Embedded resource ', h('code', {}, part.uri), h('span', { class: 'muted' }, ` ${part.mimeType ?? ''} ${part.text ? `${part.size} characters of text` : size(part.size)}`));
    case 'structured': {
      let value;
      try {
        value = JSON.parse(part.json);
      } catch {
        value = undefined;
      }
      return h('details', { open: true }, h('summary', {}, 'Structured content'), value === undefined ? h('pre', { class: 'code' }, part.json) : json(value));
    }
    default:
      return null;
  }
}

/** the list of a result's other content, or nothing when it had only text */
export function resultContentView(content) {
  if (!Array.isArray(content) || !content.length) return null;
  return h('ul', { class: 'result-content' }, content.map((part) => h('li', { 'data-kind': part.kind }, partView(part))));
}
