import { z } from 'zod';

/** what an eval's report can fail on (`--fail-on`): CI gates a config change on these */
export const failConditions = ['tool-calls-changed', 'reply-changed', 'mapping-changed', 'failures', 'expectations'] as const;
export type FailCondition = (typeof failConditions)[number];

/** Which recorded requests an eval replays: receipts whose payload is still retained, newest first. */
export const evalSelectionSchema = z
  .object({
    since: z.number().int().nonnegative().optional().describe('Received at or after (epoch ms).'),
    until: z.number().int().nonnegative().optional().describe('Received at or before (epoch ms).'),
    mapping: z.string().min(1).optional().describe('Only requests this mapping handled (its id).'),
    preset: z.string().min(1).optional().describe("Only requests a preset's mappings handled (the preset's id, e.g. github)."),
    agent: z.string().min(1).optional().describe('Only requests whose recorded run went to this agent.'),
    status: z
      .union([z.enum(['ok', 'error']), z.number().int().min(100).max(599)])
      .optional()
      .describe('Only requests answered ok (< 400), error (>= 400), or with this HTTP status.'),
    limit: z.number().int().min(1).max(100_000).default(100).describe('At most this many requests, newest first.'),
  })
  .strict();
export type EvalSelection = z.output<typeof evalSelectionSchema>;

/**
 * The candidate: the running config with overrides by dotted key (`agents.<id>.<field>` names an
 * agent of agents.list by id), and mappings that replace the configured ones of the same id.
 */
export const evalCandidateSchema = z
  .object({
    overrides: z
      .record(z.string().regex(/^[A-Za-z0-9_$-]+(\.[A-Za-z0-9_$*-]+)*$/, 'a dotted config key, e.g. agents.main.instructions'), z.unknown())
      .default({})
      .describe('Config values by dotted key: agents.<id>.instructions, agents.<id>.model, agents.<id>.tools, hooks.presets, ...'),
    mappings: z.array(z.record(z.string(), z.unknown())).default([]).describe('Mappings that take the place of the configured ones of the same id (or go first).'),
    model: z.string().min(1).optional().describe("Every agent's model for this eval (a cheaper dry run), over the candidate's."),
  })
  .strict();
export type EvalCandidate = z.output<typeof evalCandidateSchema>;

/** How the replay runs, beside what it replays and against what. */
export const evalRunOptionsSchema = z
  .object({
    liveReads: z.boolean().default(false).describe("Execute read-only tools the recording did not call (never a write: a write tool's call is reported, not made)."),
    repeat: z.number().int().min(1).max(20).default(1).describe("Ask the candidate's model this many times per request: how stable its answer is."),
    judge: z
      .object({
        model: z.string().min(1).describe('The model ref that scores changed replies.'),
        rubric: z.string().min(1).max(20_000).describe('What a good reply is, given to the judge.'),
      })
      .strict()
      .optional(),
    fixtures: z.boolean().default(true).describe("Replay the fixture cases with agent expectations (expect.toolCalls, expect.replyIncludes) of the mappings selected."),
  })
  .strict();
export type EvalRunOptions = z.output<typeof evalRunOptionsSchema>;

/** `POST /admin/evals`: one request body, the same fields the CLI's flags set. */
export const evalRequestSchema = z
  .object({
    selection: evalSelectionSchema.default({ limit: 100 }),
    set: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/).optional().describe('A saved selection, by name, instead of selection.'),
    candidate: evalCandidateSchema.default({ overrides: {}, mappings: [] }),
    run: evalRunOptionsSchema.default({ liveReads: false, repeat: 1, fixtures: true }),
  })
  .strict();
export type EvalRequest = z.output<typeof evalRequestSchema>;
