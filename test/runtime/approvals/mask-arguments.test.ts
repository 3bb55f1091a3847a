import { describe, expect, it } from 'vitest';
import { MASK, isSecretKey, looksLikeToken, maskArguments, maskText } from '../../../src/runtime/approvals/mask-arguments.js';

// shaped as the platforms document their tokens, made up here
const GITHUB_PAT = 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8';
const OPENAI_KEY = 'sk-proj-' + 'Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe';
const SLACK_BOT = 'xoxb-' + '123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx';
const JWT = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U';
const HEX_SECRET = '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08';
const BASE64_SECRET = 'Qm9vdFN0cmFwS2V5MTIzNDU2Nzg5MGFiY2RlZmdoaWprbA';

describe('maskArguments', () => {
  it('masks the values of secret-looking keys, whatever their case and separators, keeping the shape', () => {
    const masked = maskArguments(
      JSON.stringify({
        repo: 'acme/api',
        title: 'Crash on start',
        api_key: 'plain-value',
        apiKey: 'x',
        'X-Api-Key': 'y',
        Authorization: 'whatever',
        db_password: 'hunter2',
        clientSecret: 's',
        refresh_token: 'r',
        credentials: { user: 'bob', pass: 'p' },
        Cookie: 'sid=1',
        sshKey: 'k',
        labels: ['bug'],
        count: 3,
        use_token: true,
        token: null,
      }),
    );
    expect(masked).toEqual({
      repo: 'acme/api',
      title: 'Crash on start',
      api_key: MASK,
      apiKey: MASK,
      'X-Api-Key': MASK,
      Authorization: MASK,
      db_password: MASK,
      clientSecret: MASK,
      refresh_token: MASK,
      credentials: MASK,
      Cookie: MASK,
      sshKey: MASK,
      labels: ['bug'],
      count: 3,
      use_token: true,
      token: null,
    });
  });

  it('leaves keys that only contain the letters of "key" alone', () => {
    for (const name of ['keyword', 'monkey', 'hockeyTeam', 'title', 'body', 'labels']) expect(isSecretKey(name), name).toBe(false);
    for (const name of ['key', 'api_key', 'x-api-key', 'sshKey', 'publicKeys', 'accessToken', 'PASSWORD', 'set-cookie']) expect(isSecretKey(name), name).toBe(true);
  });

  it('masks values that look like tokens under any key, nested and in arrays', () => {
    const masked = maskArguments(JSON.stringify({ body: GITHUB_PAT, list: [OPENAI_KEY, 'ok'], nested: { deep: [{ v: SLACK_BOT }] }, jwt: JWT, hex: HEX_SECRET, b64: BASE64_SECRET }));
    expect(masked).toEqual({ body: MASK, list: [MASK, 'ok'], nested: { deep: [{ v: MASK }] }, jwt: MASK, hex: MASK, b64: MASK });
  });

  it('masks tokens inside longer text and leaves the prose', () => {
    expect(maskText(`Use ${GITHUB_PAT} to push, then tell the team.`)).toBe(`Use ${MASK} to push, then tell the team.`);
    expect(maskText(`curl -H "Authorization: Bearer ${OPENAI_KEY}" https://api.example.com`)).toBe(`curl -H "Authorization: Bearer ${MASK}" https://api.example.com`);
    expect(maskText('https://bob:hunter2@db.example.com:5432/app')).toBe(`https://bob:${MASK}@db.example.com:5432/app`);
    expect(maskText('https://api.example.com/v1/items?access_token=abc123&page=2')).toBe(`https://api.example.com/v1/items?access_token=${MASK}&page=2`);
    expect(maskText('password: hunter2, user: bob')).toBe(`password: ${MASK}, user: bob`);
    expect(maskText(`id_token=${JWT}.`)).toBe(`id_token=${MASK}.`);
  });

  it('does not take ordinary long words, paths, ids and dates for tokens', () => {
    const text = 'deploy-production-cluster-2026 /repos/OpenAI/openai-node/issues/1234 create_issue_with_labels_for_repository 2026-11-28T14:26:45.000Z Basic setup instructions';
    expect(maskText(text)).toBe(text);
    for (const word of ['deploy-production-cluster-2026', 'CamelCaseIdentifierWithoutDigits', '550e8400-e29b-41d4-a716-446655440000']) expect(looksLikeToken(word), word).toBe(false);
  });

  it('errs on the side of hiding: a commit SHA (40 hex digits) is masked', () => {
    expect(maskText('revert 3bfd1c1a2b3c4d5e6f708192a3b4c5d6e7f80912')).toBe(`revert ${MASK}`);
  });

  it('masks arguments that are not JSON as text', () => {
    expect(maskArguments(`{"broken": "${GITHUB_PAT}"`)).toBe(`{"broken": "${MASK}"`);
  });
});
