/** the shortest value masked: shorter ones would mask ordinary words */
const MIN_SECRET = 8;
/** the newest secrets kept (a token refreshed hourly for a year is not kept 8,760 times) */
const MAX_SECRETS = 64;

/**
 * The secrets of a sign-in (tokens, client secrets, codes, verifiers), replaced by `***`
 * wherever a server's or an authorization server's text is shown or logged: one may echo a
 * secret back in an error.
 */
export class SecretMask {
  private readonly secrets = new Set<string>();

  /** `lasting`: secrets from config, masked for as long as the mask lives */
  constructor(private readonly lasting: readonly string[] = []) {}

  add(secret: string | undefined): void {
    if (!secret || secret.length < MIN_SECRET) return;
    this.secrets.delete(secret);
    this.secrets.add(secret);
    if (this.secrets.size > MAX_SECRETS) this.secrets.delete(this.secrets.values().next().value!);
  }

  apply(text: string): string {
    let out = text;
    for (const secret of [...this.lasting, ...this.secrets]) if (out.includes(secret)) out = out.split(secret).join('***');
    return out;
  }
}
