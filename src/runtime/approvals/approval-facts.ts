import { readCheckpoint } from '../../agents/tool-use/tool-ledger.js';
import type { HeraldConfig } from '../../config/schema.js';
import type { RunRecord, ToolCallRecord } from '../../store/port.js';
import { approvalRule } from '../../tools/tool-policy.js';
import { toolName } from '../../tools/tool-name.js';

/** how much of the request's first line and of the agent's words a person is shown */
const HEADLINE_MAX = 300;
const SAID_MAX = 2000;

/** what a person needs beside the call to decide it: what started the run, what the agent said, why a person is asked */
export interface ApprovalFacts {
  /** the request that made the run: its mapping, the run's name, and the first line of its message (a preset's sender and title) */
  trigger: { name: string; mappingId: string; path: string; headline: string } | null;
  /** the model's words in the turn that asked for the call (before it), or null when it said nothing */
  agentSaid: string | null;
  /** one sentence per rule that holds the call for a person (tools.grant, requireApproval at each level) */
  why: string[];
}

/**
 * The facts of a call held for a person, read from its run: the run's action (its mapping, whether
 * its request was signed, the mapping's tools), its checkpoint (the assistant message that made the
 * call) and the running config (the agent's and servers' requireApproval), by the same rule the
 * verdict took (tool-policy.ts approvalRule).
 */
export function approvalFacts(call: ToolCallRecord, run: RunRecord | null, config: Pick<HeraldConfig, 'tools' | 'agents'>): ApprovalFacts {
  if (!run) return { trigger: null, agentSaid: null, why: [] };
  const { action } = run;
  const headline = run.message.split('\n').find((line) => line.trim()) ?? '';
  const asked = readCheckpoint(run.turnState)?.messages.find((m) => m.role === 'assistant' && m.tool_calls?.some((t) => t.id === call.callId));
  const said = asked?.content?.trim();
  const agent = config.agents.list.find((a) => a.id === call.agentId);
  const rule = agent && approvalRule(config.tools, agent, { outside: true, mapping: action.tools, signed: action.signed === true });
  return {
    trigger: { name: run.name, mappingId: action.source.mappingId, path: action.source.path, headline: cut(headline.trim(), HEADLINE_MAX) },
    agentSaid: said ? cut(said, SAID_MAX) : null,
    why: call.approvalRequired && rule ? rule({ name: toolName(call.server, call.tool), server: call.server, readOnly: call.readOnly }) : [],
  };
}

const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
