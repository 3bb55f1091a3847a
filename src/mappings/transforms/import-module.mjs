// Plain JavaScript on purpose: tsx resolves `x.js` imported from a .ts file to `x.ts` when both
// exist (TypeScript's convention), so a transform named `order.js` beside an `order.ts` would
// load the wrong file if the import() below sat in transform-loader.ts.
/** @param {string} url */
export function importModule(url) {
  return import(url);
}
