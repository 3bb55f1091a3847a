/**
 * The most one message from a server may take (bytes), counted while it is read: the SDK parses
 * a message whole, so a hostile server's endless answer is refused here rather than held. A stdio
 * server past it is disconnected (and restarted); an HTTP answer past it fails its request.
 */
export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;
/** the mark of an answer refused for its size, in the transport's error */
export const OVERSIZED = 'larger than the message limit';
/** the error of an answer past `maxBytes`, as every transport words it */
export const oversizedError = (maxBytes: number): Error => new Error(`the server's answer is ${OVERSIZED} (${maxBytes / 1024 / 1024} MB)`);
