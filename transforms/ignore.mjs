// Handles a request and does nothing with it: the caller gets 204.
// Used as the last mapping of a path, so events you do not care about (GitHub's "ping",
// issue labels, ...) are acknowledged instead of answered with 404.
export default function ignore() {
  return null;
}
