import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { takeAgentTurn, type AgentTurnDeps } from '../../src/agents/agent-turn.js';
import { takeRunTurnInProcess } from '../../src/agents/in-process-turn.js';
import type { HookRunTurnInput } from '../../src/agents/turn-inputs.js';
import { extractiveAnswer } from '../../src/knowledge/searching/extractive-answer.js';
import { ModelRegistry } from '../../src/models/model-registry.js';
import type { SessionsRepo } from '../../src/store/port.js';
import { loadConfigValue } from '../helpers/builtins.js';
import { baseConfig, tempDir } from '../helpers/start-herald.js';

/** the turn of a run whose chain answers in process (src/agents/in-process-turn.ts) is takeAgentTurn's, computed in the call */
async function depsWith(model: unknown): Promise<AgentTurnDeps> {
  const { config } = await loadConfigValue(baseConfig({ agents: { defaults: { model }, list: [{ id: 'main' }] } }), path.join(tempDir(), 'herald.json'));
  return { config, models: new ModelRegistry(config, extractiveAnswer), sessions: {} as SessionsRepo };
}

const input = (deps: AgentTurnDeps, over: Partial<HookRunTurnInput> = {}): HookRunTurnInput => ({
  agent: { ...deps.config.agents.list[0]!, id: 'main' } as HookRunTurnInput['agent'],
  purpose: 'run',
  sessionKey: 'hook:1',
  history: [{ role: 'user', content: 'earlier', runId: null, meta: null, createdAt: 1 }],
  prompt: 'the wrapped prompt',
  question: 'the nightly export finished',
  deadlineAt: Date.now() + 60_000,
  incoming: [{ role: 'user', content: 'the nightly export finished', runId: 'r1', meta: null, createdAt: 2 }],
  answer: () => ({ runId: 'r1' }),
  ...over,
});

describe('a run turn on models answering in process', () => {
  it('is the agent turn, computed in the call', async () => {
    const deps = await depsWith('embedded/extractive');
    const now = takeRunTurnInProcess(deps, input(deps));
    expect(now).not.toBeInstanceOf(Promise);
    const taken = await takeAgentTurn(deps, input(deps));
    const { transcript, ...rest } = now as Extract<typeof now, { kind: 'answered' }>;
    const { transcript: takenTranscript, ...takenRest } = taken as typeof rest & { transcript: typeof transcript };
    expect(rest).toEqual(takenRest);
    // the answer's time is the clock's
    expect(transcript.map(({ createdAt: _, ...m }) => m)).toEqual(takenTranscript.map(({ createdAt: _, ...m }) => m));
    expect(rest).toMatchObject({ kind: 'answered', outcome: { modelRef: 'embedded/extractive', failures: [] } });
  });

  it('tries the chain as the agent turn does: a model that fails is passed over', async () => {
    const deps = await depsWith({ primary: 'embedded/extractive', fallbacks: ['embedded/other'] });
    const now = takeRunTurnInProcess(deps, input(deps, { options: { extra: { response_format: { type: 'json_object' } } } } as Partial<HookRunTurnInput>));
    const taken = await takeAgentTurn(deps, input(deps, { options: { extra: { response_format: { type: 'json_object' } } } } as Partial<HookRunTurnInput>));
    expect(now).toMatchObject({ kind: 'failed' });
    expect(String((now as { error: Error }).error.cause)).toBe(String((taken as { error: Error }).error.cause));
  });

  it('leaves a turn going on from a checkpoint to the agent turn', async () => {
    const deps = await depsWith('embedded/extractive');
    const resumed = takeRunTurnInProcess(deps, input(deps, { resume: { messages: [{ role: 'user', content: 'q' }], round: 0, callsMade: 0, usage: { prompt_tokens: 1, completion_tokens: 0, total_tokens: 1 }, modelRef: 'embedded/extractive', exchangeFrom: 1 } }));
    expect(resumed).toBeInstanceOf(Promise);
    expect(await resumed).toMatchObject({ kind: 'answered' });
  });
});
