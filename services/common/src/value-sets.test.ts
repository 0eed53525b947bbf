import { COMMAND_KINDS, FREQUENCY_OPTIONS, UPDATE_STATUSES } from '@coffer/contracts';
import { auth, orchestrator, schedule } from '@coffer/proto';
import { AppError } from './errors';
import { parseInput } from './validation';
import {
  accountStatus,
  agentAction,
  agentUpdateStatus,
  backupFrequency,
  backupType,
  commandKind,
  jobStatus,
  role,
} from './value-sets';

describe('proto value sets', () => {
  it('covers the sets @coffer/contracts names, and no more', () => {
    expect([...commandKind.values].sort()).toEqual([...COMMAND_KINDS].sort());
    expect([...agentUpdateStatus.values].sort()).toEqual([...UPDATE_STATUSES].sort());
    expect(backupFrequency.values).toEqual([...FREQUENCY_OPTIONS]);
  });

  it('round-trips every domain value, and frequencies keep their hours as enum numbers', () => {
    for (const set of [
      jobStatus,
      backupType,
      agentAction,
      commandKind,
      agentUpdateStatus,
      role,
      accountStatus,
    ]) {
      const s = set as unknown as {
        values: string[];
        toProto(v: string): string;
        fromRequest(p: string): string;
      };
      for (const v of s.values) expect(s.fromRequest(s.toProto(v))).toBe(v);
    }
    for (const h of FREQUENCY_OPTIONS) {
      const p = backupFrequency.toProto(h);
      expect(schedule.backupFrequencyToNumber(p)).toBe(h);
      expect(backupFrequency.fromAnswer(p)).toBe(h);
    }
    expect(jobStatus.toProto('in-progress')).toBe(orchestrator.JobStatus.JOB_STATUS_IN_PROGRESS);
  });

  it('refuses UNSPECIFIED and unknown members from a request with BAD_INPUT', () => {
    for (const p of [auth.Role.ROLE_UNSPECIFIED, auth.Role.UNRECOGNIZED]) {
      expect(() => role.fromRequest(p)).toThrow(AppError);
      expect(() => role.fromRequest(p)).toThrow("Role must be 'user' or 'admin'");
    }
    expect(() => parseInput(agentAction.schema, orchestrator.AgentAction.AGENT_ACTION_UNSPECIFIED)).toThrow(
      expect.objectContaining({ kind: 'BAD_INPUT', message: 'Action must be restart, update or reset' }),
    );
    expect(parseInput(agentAction.schema, orchestrator.AgentAction.AGENT_ACTION_RESET)).toBe('reset');
  });

  it('treats UNSPECIFIED in an answer and an unmapped domain value as bugs, not bad input', () => {
    expect(() => jobStatus.fromAnswer(orchestrator.JobStatus.JOB_STATUS_UNSPECIFIED)).toThrow(
      /Unexpected JOB_STATUS_UNSPECIFIED/,
    );
    expect(() => backupFrequency.toProto(12)).toThrow(/12 has no proto value/);
  });
});
