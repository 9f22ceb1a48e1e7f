import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { PLAN_STATE_WORDS } from '../../src/domain/plan-render';
import type { PlanPreset } from '../../src/domain/plan-rules';
import { STATE_LABEL } from './states';

/**
 * The words item states are read in where they show: a domain's task in the
 * knowledge base's (To do / Doing / Done), a session's plan in its tool set's
 * own (whole-list's chat says Pending / In progress / Completed), so a person
 * reads a plan as its agent and its chat do.
 */
export const StateWords = createContext<Readonly<Record<string, string>>>(STATE_LABEL);

export function useStateWords(): Readonly<Record<string, string>> {
  return useContext(StateWords);
}

/** The set a session's plan follows, the one it started with (Session.preset); null for a task in a domain. */
export function presetOf(session: { preset: PlanPreset } | null | undefined): PlanPreset | null {
  return session?.preset ?? null;
}

export function wordsFor(preset: PlanPreset | null): Readonly<Record<string, string>> {
  return preset ? PLAN_STATE_WORDS[preset] : STATE_LABEL;
}
