import type { ModelRegistry } from '../../models/model-registry.js';

export interface JudgeScore {
  /** 1 (much worse) to 5 (much better) */
  score: number;
  verdict: string;
  reason: string;
}

const SYSTEM = [
  'You compare two replies of an AI agent to the same request and score the new one against the old one by the rubric.',
  'Answer with one JSON object and nothing else: {"score": 1-5, "verdict": "worse" | "same" | "better", "reason": "one sentence"}.',
  'Score 3 when the new reply is as good as the old one; 1 much worse; 5 much better.',
].join(' ');

/** Asks the judge's model to score a changed reply; its answer is read leniently (the first JSON object in it). */
export async function judgeReply(models: ModelRegistry, model: string, rubric: string, request: string, before: string, after: string): Promise<JudgeScore> {
  const { provider, resolved } = models.resolve(model);
  const response = await provider.complete({
    model: resolved.model,
    purpose: 'chat',
    messages: [
      { role: 'system', content: `${SYSTEM}\n\nRubric:\n${rubric}` },
      { role: 'user', content: `Request:\n${request}\n\nOld reply:\n${before}\n\nNew reply:\n${after}` },
    ],
  });
  const found = /\{[\s\S]*\}/.exec(response.text);
  let answer: Partial<JudgeScore> = {};
  try {
    answer = found ? (JSON.parse(found[0]) as Partial<JudgeScore>) : {};
  } catch {
    // not JSON: the score below says so
  }
  const score = Number(answer.score);
  if (!Number.isFinite(score) || score < 1 || score > 5) throw new Error(`the judge's answer has no score from 1 to 5: ${response.text.slice(0, 200)}`);
  return { score, verdict: String(answer.verdict ?? (score > 3 ? 'better' : score < 3 ? 'worse' : 'same')), reason: String(answer.reason ?? '') };
}
