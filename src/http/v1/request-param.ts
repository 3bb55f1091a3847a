/** a zod issue path as OpenAI names a param: `messages.0.content` -> `messages[0].content` */
export const paramOf = (path: PropertyKey[]) =>
  path.reduce<string>((p, k) => (typeof k === 'number' ? `${p}[${k}]` : p ? `${p}.${String(k)}` : String(k)), '');
