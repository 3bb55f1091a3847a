import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { extractiveAnswer } from '../../src/knowledge/searching/extractive-answer.js';
import { fuseRankings } from '../../src/knowledge/searching/fuse-rankings.js';
import { KnowledgeIndex } from '../../src/knowledge/knowledge-index.js';
import type { ScoredCandidate } from '../../src/knowledge/searching/rank-passages.js';
import { queryTerms } from '../../src/knowledge/searching/search-query.js';
import { wordsOf } from '../../src/knowledge/text-terms.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { tempDir } from '../helpers/start-herald.js';

describe('the words a text is indexed by', () => {
  it('keeps a code whole and in parts, however it is written', () => {
    expect(wordsOf('ERR-4012')).toEqual(['err', '4012', 'err4012']);
    expect(wordsOf('ORD-2024-03117 shipped')).toEqual(['ord', '2024', '03117', 'ord202403117', 'shipped']);
    expect(wordsOf('ERR5003')).toEqual(['err5003', 'err', '5003']);
    expect(queryTerms('ERR5003')).toEqual(expect.arrayContaining(wordsOf('ERR-5003').filter((w) => w.length > 1)));
    // a host name or a date is no code: no joined term
    expect(wordsOf('vpn.acme.example')).toEqual(['vpn', 'acme', 'example']);
  });

  it('cuts Korean into syllable pairs, so a word is found with its particles and endings', () => {
    expect(wordsOf('비밀번호는 변경합니다')).toEqual(['비밀', '밀번', '번호', '호는', '변경', '경합', '합니', '니다']);
    const asked = queryTerms('비밀번호 변경');
    const indexed = new Set(wordsOf('비밀번호는 60일마다 변경합니다.'));
    expect(asked.every((t) => indexed.has(t))).toBe(true);
  });

  it('does not search for the words that only ask how many or how long', () => {
    expect(queryTerms('年假有几天')).toEqual(['年假']);
    expect(queryTerms('退款多久到账')).toEqual(['退款', '到', '账']);
    expect(queryTerms('How many weeks of parental leave?')).toEqual(['week', 'parent', 'leav']);
  });
});

describe('a short Chinese question whose key term the right document repeats', () => {
  const documents: Record<string, string> = {
    'annual-leave.md': '年假规定：员工工作满一年后享有年假。年假天数按工龄计算，满1年不满10年的年假5天，满10年的年假10天。年假须提前申请，年假可以分次休完，未休的年假可顺延到下一年。',
    'sick-leave.md': '病假规定：员工请病假须提供医院证明。病假期间工资按80%发放。病假与年假不能合并使用。',
    'delivery.md': '快递说明：下单后一般几天能到？通常3到5天送达，偏远地区会慢一些。',
    'canteen.md': '食堂每天中午开放，员工刷卡就餐，菜品每周更新。',
  };

  it('ranks and quotes that document first, not one sharing an incidental word', async () => {
    const store = openSqliteStore(path.join(tempDir(), 'kb.db'));
    const index = new KnowledgeIndex(store.knowledge);
    for (const [i, [filename, text]] of Object.entries(documents).entries()) {
      await index.add({ agentId: 'a', filename, bytes: 1, mimeType: 'text/plain', sha256: `${i + 1}`.padStart(64, '0'), metadata: null }, [text]);
    }
    for (const question of ['年假有几天', '年假几天？']) {
      const passages = await index.search('a', question, 4);
      expect(passages.map((p) => p.filename)).not.toContain('delivery.md');
      expect(passages[0]!.filename).toBe('annual-leave.md');
      const answer = extractiveAnswer(question, passages);
      expect(answer).toContain('“年假规定：员工工作满一年后享有年假。年假天数按工龄计算，满1年不满10年的年假5天，满10年的年假10天。” [1]');
      expect(answer).toMatch(/来源：\[1\] annual-leave\.md/);
    }
    await store.close();
  });
});

describe('a short question phrased with when, where, how, why or which', () => {
  // the answering passages, one on another topic, and short FAQ lines that share only an asking
  // word with a question: rarer than its topic, that one word ranked an FAQ line among the answers
  const faq = [
    '什么时候发货？', '何时能到？', '哪天签收？', '在哪里查物流？', '在哪取件？', '去哪儿退货？', '怎么付款？', '怎样改地址？',
    '如何开票？', '为什么没到？', '为何拒收？', '哪个快递？', '哪些地区包邮？', '多少钱？',
    'いつ届きますか？', 'どこで受け取れますか？', 'なぜ遅れるのですか？', 'どうして届かないのですか？', 'どうやって返品しますか？',
    'どの色がありますか？', 'どれが人気ですか？', '何日で届きますか？', 'いくらですか？',
  ];
  const documents: Record<string, string> = {
    'annual-leave.md': '年假规定：员工工作满一年后享有年假，满1年不满10年的年假5天。年假须提前3个工作日在OA系统申请。未休的年假顺延到次年3月31日，逾期作废。',
    'canteen.md': '食堂每天中午开放，员工刷卡就餐，菜品每周更新。',
    'paid-leave.md': '年次有給休暇について。入社6か月後に10日の有給休暇を付与します。有給休暇は3営業日前までに勤怠システムで申請してください。使わなかった有給休暇は翌年度に繰り越せます。',
    ...Object.fromEntries(faq.map((line, i) => [`faq-${i + 1}.md`, line])),
  };
  const questions: [string, string][] = [
    ['年假什么时候作废', 'annual-leave.md'],
    ['年假何时作废', 'annual-leave.md'],
    ['哪天休年假', 'annual-leave.md'],
    ['年假在哪里申请', 'annual-leave.md'],
    ['年假在哪申请', 'annual-leave.md'],
    ['年假去哪儿申请', 'annual-leave.md'],
    ['年假怎么申请', 'annual-leave.md'],
    ['年假怎样申请', 'annual-leave.md'],
    ['如何申请年假', 'annual-leave.md'],
    ['年假为什么作废', 'annual-leave.md'],
    ['年假为何作废', 'annual-leave.md'],
    ['哪个系统申请年假', 'annual-leave.md'],
    ['哪些员工有年假', 'annual-leave.md'],
    ['年假有多少', 'annual-leave.md'],
    ['有給休暇はいつ申請しますか', 'paid-leave.md'],
    ['有給休暇はどこで申請しますか', 'paid-leave.md'],
    ['なぜ有給休暇を繰り越せますか', 'paid-leave.md'],
    ['どうして有給休暇を繰り越せるのですか', 'paid-leave.md'],
    ['有給休暇はどう申請しますか', 'paid-leave.md'],
    ['有給休暇はどうやって申請しますか', 'paid-leave.md'],
    ['どのシステムで有給休暇を申請しますか', 'paid-leave.md'],
    ['有給休暇はどれですか', 'paid-leave.md'],
    ['有給休暇は何日ですか', 'paid-leave.md'],
    ['有給休暇はいくらですか', 'paid-leave.md'],
  ];

  it('does not search for the asking words, in Chinese or Japanese', () => {
    expect(queryTerms('年假什么时候作废')).toEqual(['年假', '作废']);
    expect(queryTerms('哪天休年假')).toEqual(['休', '年假']);
    expect(queryTerms('发票在哪开')).toEqual(['发票', '开']);
    expect(queryTerms('年假为何作废')).toEqual(['年假', '作废']);
    expect(queryTerms('有給休暇はどうやって申請しますか')).toEqual(['有給', '休暇', '申請']);
    expect(queryTerms('有給休暇は何日ですか')).toEqual(['有給', '休暇']);
    // documents keep them: they are indexed as written
    expect(wordsOf('什么时候发货？何时能到？')).toEqual(expect.arrayContaining(['什么时候', '何时']));
  });

  it('ranks the answering passage first, and no passage sharing only an asking word', async () => {
    const store = openSqliteStore(path.join(tempDir(), 'kb.db'));
    const index = new KnowledgeIndex(store.knowledge);
    for (const [i, [filename, text]] of Object.entries(documents).entries()) {
      await index.add({ agentId: 'a', filename, bytes: 1, mimeType: 'text/plain', sha256: `${i + 1}`.padStart(64, '0'), metadata: null }, [text]);
    }
    const found: Record<string, string[]> = {};
    for (const [question] of questions) found[question] = (await index.search('a', question, 4)).map((p) => p.filename);
    expect(Object.fromEntries(Object.entries(found).map(([q, files]) => [q, files[0]]))).toEqual(Object.fromEntries(questions));
    expect(Object.entries(found).filter(([, files]) => files.some((f) => f.startsWith('faq-')))).toEqual([]);
    await store.close();
  });
});

describe('the quoted answer', () => {
  it('quotes the Korean sentence that answers, not the whole paragraph', () => {
    const content = '입사 후 수습 기간(3개월)이 끝난 직원은 주 2회까지 재택근무를 할 수 있습니다. 전날 오후 5시까지 그룹웨어에서 신청합니다. 재택근무 지원금으로 매월 5만 원이 지급됩니다.';
    const answer = extractiveAnswer('재택근무 지원금', [{ documentId: 'd', filename: 'remote.md', chunkId: 'c', score: 1, content }]);
    expect(answer).toBe('지식 베이스에 따르면:\n\n"재택근무 지원금으로 매월 5만 원이 지급됩니다." [1]\n\n출처: [1] remote.md');
  });

  it('of sentences holding as many of the question\'s terms, quotes the one holding the rarer', () => {
    const content = '# Public API error codes\n\nEvery error response has the form {"error": {"code": "..."}}.\n- ERR-4001: The request body is not valid JSON.\n- ERR-4012: The access token is invalid.';
    const answer = extractiveAnswer('error 4001', [{ documentId: 'd', filename: 'api-errors.md', chunkId: 'c', score: 1, content }]);
    expect(answer).toBe('From my knowledge base:\n\n"ERR-4001: The request body is not valid JSON." [1]\n\nSources: [1] api-errors.md');
  });
});

describe('fusing full text and vectors', () => {
  const candidate = (chunkId: string, score: number): ScoredCandidate => ({ chunkId, documentId: chunkId, filename: `${chunkId}.md`, content: chunkId, terms: chunkId, score });
  const near = (chunkId: string, similarity: number) => ({ ...candidate(chunkId, 0), similarity });

  it('keeps a passage far ahead in full text first when the vectors barely tell the candidates apart', () => {
    const fused = fuseRankings([candidate('code', 9), candidate('other', 2), candidate('third', 1.5)], [near('third', 0.52), near('other', 0.5), near('code', 0.45)]);
    // fusing ranks alone would tie it with the passage the vectors liked best (1/61 + 1/63 each)
    expect(fused[0]!.chunkId).toBe('code');
  });

  it('lets the vectors decide where the words find nothing, above the similarity floor only', () => {
    const fused = fuseRankings([], [near('meaning', 0.8), near('weak', 0.35), near('noise', 0.1)]);
    expect(fused.map((c) => c.chunkId)).toEqual(['meaning', 'weak']);
  });

  it('ranks a passage both find well above one only the words find', () => {
    const fused = fuseRankings([candidate('words', 4), candidate('both', 3.5)], [near('both', 0.9), near('elsewhere', 0.6)]);
    expect(fused[0]!.chunkId).toBe('both');
  });
});
